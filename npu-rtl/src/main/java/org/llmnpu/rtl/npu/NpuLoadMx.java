package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.catLsbFirst;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.MxLoad;

/**
 * The {@code loadmx} decoder unit of the {@link Npu}'s load path (built when {@code NpuConfig.mxLoad}):
 * one per byte of a memory beat, combinational between the memory's read data and the scratchpad's
 * write port, so a {@code loadmx} runs exactly as a {@code load} (cycles {@code CycleModel#load}; the
 * controller is in LOAD with {@link #active} set, taken at the transfer's dispatch). Latency 0 (combinational). Each element byte becomes the INT8 code of
 * {@code org.llmnpu.isa.MxLoad#code}, bit for bit:
 *
 * <ul>
 *   <li>FP8 (E4M3, E5M2; E exponent and M mantissa bits): significand {@code s = (e ≠ 0)·2^M + m},
 *   magnitude {@code s · 2^(6−M)} (7 bits: the top binade on bit 6), shifted right by
 *   {@code top − max(e, 1)} ({@code top} = 15 for E4M3, 30 for E5M2; clamped to 8, which already gives
 *   0) with round to nearest, ties to even (guard bit and sticky OR of the bits below), then the
 *   sign applied in two's complement; NaN (E4M3 {@code S.1111.111}) and E5M2 ∞/NaN ({@code e = 31})
 *   give 0.</li>
 *   <li>INT8: the byte itself.</li>
 * </ul>
 * Cost: per byte two 15-bit barrel shifters, two 7-bit incrementers and negators, a 3-way mux.
 */
public final class NpuLoadMx extends HwModule {
  /** A DMA transfer is dispatched: {@link #active} takes {@link #isLoadMx}, the format {@link #formatField}. */
  public final Bool dispatch = in(bool());
  public final Bool isLoadMx = in(bool());
  /** The command's format field (word 7 bits 1:0: {@code MxLoad} E4M3, E5M2, INT8). */
  public final UInt formatField = in(uint(2));
  /** The memory's read data. */
  public final UInt data;
  /** What a LOAD response writes: {@link #data}, or its codes while a {@code loadmx} runs. */
  public final UInt loadData;
  /** The LOAD in progress is a {@code loadmx}. */
  public final Bool active = out(bool());
  private final int line;

  /** The decoders of an NPU of configuration {@code c} (one per byte of its lines). */
  public NpuLoadMx(NpuConfig c) {
    line = c.machine().lineBytes();
    data = in(uint(8 * line));
    loadData = out(uint(8 * line));
    Bool isActive = regInit("active", bool(), 0);
    UInt format = regInit("format", uint(2), 0);
    when(dispatch, () -> {
      isActive.set(isLoadMx);
      format.set(formatField);
    });
    active.set(isActive);
    List<HwValue> out = new ArrayList<>();
    for (int i = 0; i < line; i++) {
      out.add(code(data.slice(8 * i + 7, 8 * i), format));
    }
    UInt codes = wire("codes", catLsbFirst(out).asUInt());
    loadData.set(mux(isActive, codes, data));
  }

  /** Synthesized inside the NPU's top: its paths continue through the other units. */
  @Override
  public boolean flattenInSynthesis() {
    return true;
  }

  @Override
  public String moduleName() {
    return "NpuLoadMx_l" + line;
  }

  /** The code of one element byte in {@code format}. */
  static UInt code(UInt b, UInt format) {
    return mux(format.eq(MxLoad.E4M3), fp(b, 4, 3, 15), mux(format.eq(MxLoad.E5M2), fp(b, 5, 2, 30), b));
  }

  /** An FP8 element with {@code eBits} exponent and {@code mBits} mantissa bits whose top binade has exponent field {@code top}. */
  private static UInt fp(UInt b, int eBits, int mBits, int top) {
    Bool sign = b.bit(7);
    UInt e = b.slice(6, mBits);
    UInt m = b.slice(mBits - 1, 0);
    Bool special = eBits == 4 ? e.eq(15).and(m.eq(7)) : e.eq(31);
    UInt s = cat(e.ne(0), m).asUInt();
    UInt magnitude = s.shiftLeft(6 - mBits);
    UInt exponent = mux(e.eq(0), uintLit(1, eBits), e);
    UInt shift = uintLit(top, eBits).sub(exponent);
    UInt clamped = mux(shift.gt(8), uintLit(8, 4), shift.resize(4));
    UInt shifted = magnitude.shiftLeft(8).shiftRight(clamped);
    UInt kept = shifted.slice(14, 8);
    Bool half = shifted.bit(7);
    Bool sticky = shifted.slice(6, 0).ne(0);
    Bool up = half.and(sticky.or(kept.bit(0)));
    UInt rounded = kept.resize(8).add(mux(up, uintLit(1, 8), uintLit(0, 8)));
    UInt signed = mux(sign, uintLit(0, 8).sub(rounded), rounded);
    return mux(special, uintLit(0, 8), signed);
  }
}
