package org.llmnpu.rtl.mac;

import static org.llmnpu.hdl.Hw.bits;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.uint;

import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;

/**
 * The ports every INT8 GEMM engine of the NPU shares, so the NPU drives either the systolic
 * {@link GemmEngine} or the processing-in-memory back-end through one interface: the shape and
 * buffer write ports ({@link GemmLoadPorts}, layouts in {@link GemmEngine}), {@code start}, the
 * result read port {@code yAddress}/{@code yData} (per column a signed {@code accWidth}-bit psum at
 * {@code (m, nTile)}, column 0 in the least significant bits), {@code busy}/{@code done}, the sticky
 * {@code overflow}, psum traffic in elements and the run's cycle count. Each subclass states its
 * numerics (all are {@code numerics.gemm.TiledGemm} with {@code rows} K per tile) and its cycle formula.
 */
public abstract class GemmBackend extends HwModule {
  public final Bool start = in(bool());
  /** Shape and buffer write ports ({@code m, k, n, xWrite, xAddress, xData, wWrite, wAddress, wData}). */
  public final GemmLoadPorts load;
  public final UInt yAddress;
  public final Bits yData;
  public final Bool busy = out(bool());
  public final Bool done = out(bool());
  public final Bool overflow = out(bool());
  public final UInt psumWritebacks = out(uint(32));
  public final UInt psumReadbacks = out(uint(32));
  public final UInt cycles = out(uint(32));
  private final GemmEngineConfig config;

  protected GemmBackend(GemmEngineConfig c) {
    config = c;
    load = slave("", new GemmLoadPorts(c));
    yAddress = in(uint(c.mBits() + c.nTileBits()));
    yData = out(bits(c.array().accWidth() * c.array().cols()));
  }

  /** The parameters this engine was built with. */
  public GemmEngineConfig config() {
    return config;
  }
}
