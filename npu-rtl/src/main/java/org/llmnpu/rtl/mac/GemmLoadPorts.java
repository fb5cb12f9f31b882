package org.llmnpu.rtl.mac;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.uint;

import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.Bundle;
import org.llmnpu.hdl.Data;
import org.llmnpu.hdl.UInt;

/**
 * The host's side of a {@link GemmEngine} before a run: the shape {@code m, k, n} and the write
 * ports of the X and W buffers (layouts in {@link GemmEngine}). {@link GemmEngine} and
 * {@link GemmPpmEngine} declare it as an unnamed bundle of ports, so both have the ports
 * {@code m, k, n, xWrite, xAddress, xData, wWrite, wAddress, wData}. With {@code weightRowsPerCycle}
 * {@code R > 1} a W write carries {@code R} consecutive PE rows of one K tile (row {@code i} of the
 * group in bits {@code i·cols·e..}) and {@code wAddress} is {@code (nTile, kTile, row / R)}.
 */
public final class GemmLoadPorts extends Bundle {
  public final UInt m;
  public final UInt k;
  public final UInt n;
  public final Bool xWrite = bool();
  public final UInt xAddress;
  public final UInt xData;
  public final Bool wWrite = bool();
  public final UInt wAddress;
  public final UInt wData;
  private final GemmEngineConfig config;
  private final int weightRowsPerCycle;

  public GemmLoadPorts(GemmEngineConfig c) {
    this(c, 1);
  }

  /** Ports whose W writes carry {@code weightRowsPerCycle} PE rows (a power of two dividing {@code rows}). */
  public GemmLoadPorts(GemmEngineConfig c, int weightRowsPerCycle) {
    config = c;
    this.weightRowsPerCycle = weightRowsPerCycle;
    int groupShift = Integer.numberOfTrailingZeros(weightRowsPerCycle);
    MacArrayConfig a = c.array();
    m = uint(bitsToHold(c.maxM()));
    k = uint(bitsToHold(c.maxK()));
    n = uint(bitsToHold(c.maxN()));
    xAddress = uint(c.mBits() + c.kTileBits());
    xData = uint(8 * a.kPerTile());
    wAddress = uint(c.nTileBits() + c.kTileBits() + c.rowBits() - groupShift);
    wData = uint(weightRowsPerCycle * a.weightEntryBits() * a.cols());
  }

  @Override
  public Data copyType() {
    return new GemmLoadPorts(config, weightRowsPerCycle);
  }
}
