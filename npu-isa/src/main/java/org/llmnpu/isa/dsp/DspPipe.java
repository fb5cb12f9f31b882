package org.llmnpu.isa.dsp;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The Vector DSP's pipelined execution units, and which {@link DspOp}s each computes: with N = 2..4 execute stages a
 * unit holds N − 1 internal pipeline registers per lane, which an operation of the unit needs clocked in the N − 1
 * cycles it spends in execute 1..N − 1. The RTL's lanes clock each unit's registers only then (a clock gate per unit
 * and lane, enabled by its operations in flight), and the golden {@link DspInterpreter} counts the operations each
 * unit issued ({@link DspInterpreter#issuedByPipe()}), so the energy model charges a unit's flip-flops at most
 * N − 1 cycles per operation.
 */
public enum DspPipe {
  /** FP16 add, subtract, multiply, min, max and the comparisons ({@code Fp16Alu}). */
  FP16(DspOp.ADD16, DspOp.SUB16, DspOp.MUL16, DspOp.MIN16, DspOp.MAX16, DspOp.LT16, DspOp.EQ16),
  /** FP16 fused multiply-add ({@code Fp16Fma}). */
  FMA16(DspOp.FMA16),
  /** FP32 add, subtract, multiply ({@code Fp32Alu}). */
  FP32(DspOp.ADD32, DspOp.SUB32, DspOp.MUL32),
  /** Conversions: widen, narrow, scale, to and from integer ({@code Fp16Convert}). */
  CONVERT(DspOp.WIDEN, DspOp.NARROW, DspOp.SCALB16, DspOp.TOINT, DspOp.FROMINT),
  /** FP32 fused multiply-add, built only with {@code fma32} ({@code Fp32Fma}). */
  FMA32(DspOp.FMA32);

  private final List<DspOp> ops;

  DspPipe(DspOp... ops) {
    this.ops = List.of(ops);
  }

  /** The operations this unit computes. */
  public List<DspOp> ops() {
    return ops;
  }

  /** The unit that computes {@code op}; empty for the operations that complete in execute 1 (and the control ones). */
  public static Optional<DspPipe> of(DspOp op) {
    return Arrays.stream(values()).filter(p -> p.ops.contains(op)).findFirst();
  }

  /** The key of the energy model's counter of the cycles this unit's clock gate may be open, e.g. {@code dspFp16Cycles}. */
  public String cyclesKey() {
    String n = name().charAt(0) + name().substring(1).toLowerCase(java.util.Locale.ROOT);
    return "dsp" + n + "Cycles";
  }
}
