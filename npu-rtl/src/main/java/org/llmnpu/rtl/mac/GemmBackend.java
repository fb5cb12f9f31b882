package org.llmnpu.rtl.mac;

import static org.llmnpu.hdl.Hw.bits;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.uint;

import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.mux;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.Mem;
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
  private final int weightRowsPerCycle;

  protected GemmBackend(GemmEngineConfig c) {
    this(c, 1);
  }

  /**
   * An engine whose W buffer takes {@code weightRowsPerCycle} PE rows per write ({@link GemmLoadPorts}), a
   * power of two dividing {@code rows}.
   */
  protected GemmBackend(GemmEngineConfig c, int weightRowsPerCycle) {
    int rows = c.array().rows();
    if (weightRowsPerCycle < 1 || Integer.bitCount(weightRowsPerCycle) != 1 || rows % weightRowsPerCycle != 0) {
      throw new IllegalArgumentException("weightRowsPerCycle must be a power of two dividing rows (" + rows
          + "), got " + weightRowsPerCycle);
    }
    config = c;
    this.weightRowsPerCycle = weightRowsPerCycle;
    load = slave("", new GemmLoadPorts(c, weightRowsPerCycle));
    yAddress = in(uint(c.mBits() + c.nTileBits()));
    yData = out(bits(c.array().accWidth() * c.array().cols()));
  }

  /** PE rows per W buffer write. */
  public int weightRowsPerCycle() {
    return weightRowsPerCycle;
  }

  /**
   * The W buffer: one memory {@code wBuffer} of {@code entryBits·cols}-bit rows at {@code (nTile, kTile, row)},
   * or with {@code R = weightRowsPerCycle > 1} R memories {@code wBuffer_i} holding the rows {@code i mod R}
   * at {@code (nTile, kTile, row / R)}; {@link #writeWeightBuffer} writes them together from {@code wData}.
   */
  protected final List<Mem<UInt>> weightBuffer(int entryBits) {
    int bits = entryBits * config.array().cols();
    List<Mem<UInt>> banks = new ArrayList<>();
    for (int i = 0; i < weightRowsPerCycle; i++) {
      String name = weightRowsPerCycle == 1 ? "wBuffer" : "wBuffer_" + i;
      banks.add(mem(name, org.llmnpu.hdl.Hw.uint(bits), 1 << load.wAddress.width()));
    }
    return banks;
  }

  /** The write of the {@link #weightBuffer} banks: row {@code i} of {@code wData} into bank {@code i}. */
  protected final void writeWeightBuffer(List<Mem<UInt>> banks) {
    if (banks.size() == 1) {
      when(load.wWrite, () -> banks.get(0).write(load.wAddress, load.wData));
      return;
    }
    int bits = load.wData.width() / banks.size();
    when(load.wWrite, () -> {
      for (int i = 0; i < banks.size(); i++) {
        banks.get(i).write(load.wAddress, load.wData.slice(bits * i + bits - 1, bits * i));
      }
    });
  }

  /** PE row {@code row} of the W tile {@code (nTile, kTile)} from the {@link #weightBuffer} banks (asynchronous). */
  protected final UInt readWeightRow(List<Mem<UInt>> banks, UInt nTile, UInt kTile, UInt row) {
    if (banks.size() == 1) {
      return banks.get(0).readAsync(cat(nTile, kTile, row).asUInt());
    }
    int shift = Integer.numberOfTrailingZeros(banks.size());
    UInt address = row.width() > shift ? cat(nTile, kTile, row.slice(row.width() - 1, shift)).asUInt()
        : cat(nTile, kTile).asUInt();
    UInt word = banks.get(0).readAsync(address);
    UInt bank = row.lsbs(shift);
    for (int i = 1; i < banks.size(); i++) {
      word = mux(bank.eq(i), banks.get(i).readAsync(address), word);
    }
    return word;
  }

  /**
   * The W buffer banked by N-tile parity (a streamed GEMM's INT4 beat writes two N tiles' rows in one cycle): memory
   * {@code wBuffer_even} holds the rows of N tiles {@code 2i}, {@code wBuffer_odd} those of {@code 2i + 1}, both at
   * {@code (i, kTile, row)}; the same bits as one {@code wBuffer}, half as deep each. {@code nTileBits} ≥ 1.
   */
  protected final List<Mem<UInt>> parityWeightBuffer(int entryBits) {
    int bits = entryBits * config.array().cols();
    int depth = 1 << (load.wAddress.width() - 1);
    return List.of(mem("wBuffer_even", org.llmnpu.hdl.Hw.uint(bits), depth),
        mem("wBuffer_odd", org.llmnpu.hdl.Hw.uint(bits), depth));
  }

  /**
   * The writes of the {@link #parityWeightBuffer}: {@code wData} into the bank of {@code wAddress}'s N tile; with
   * {@code pairWrite} (at an even N tile) also {@code highData} into the odd bank, the next N tile's same row.
   */
  protected final void writeParityWeightBuffer(List<Mem<UInt>> banks, Bool pairWrite, UInt highData) {
    UInt address = load.wAddress;
    int parityBit = address.width() - config.nTileBits();
    UInt bankAddress = bankAddress(address, parityBit);
    Bool odd = address.slice(parityBit, parityBit).eq(1);
    when(load.wWrite.and(odd.not()), () -> banks.get(0).write(bankAddress, load.wData));
    when(load.wWrite.and(odd).or(pairWrite), () -> banks.get(1).write(bankAddress, mux(odd, load.wData, highData)));
  }

  /** PE row {@code row} of the W tile {@code (nTile, kTile)} from the {@link #parityWeightBuffer} (asynchronous). */
  protected final UInt readParityWeightRow(List<Mem<UInt>> banks, UInt nTile, UInt kTile, UInt row) {
    UInt address = cat(nTile, kTile, row).asUInt();
    int parityBit = address.width() - nTile.width();
    UInt bankAddress = bankAddress(address, parityBit);
    return mux(nTile.lsbs(1).eq(1), banks.get(1).readAsync(bankAddress), banks.get(0).readAsync(bankAddress));
  }

  /** {@code address} without its bit {@code parityBit} (the N tile's least significant bit). */
  private static UInt bankAddress(UInt address, int parityBit) {
    UInt low = address.lsbs(parityBit);
    return parityBit + 1 == address.width() ? low
        : cat(address.slice(address.width() - 1, parityBit + 1), low).asUInt();
  }

  /** The parameters this engine was built with. */
  public GemmEngineConfig config() {
    return config;
  }
}
