package org.llmnpu.rtl.vector;

import org.llmnpu.hdl.gen.ParamSpec;

/**
 * The {@code stages} parameter the FP lane units share ({@code fp16-alu}, {@code fp32-alu},
 * {@code fp16-convert}, {@code fp16-fma}, {@code fp32-fma}): internal pipeline registers 0..3, each one
 * more cycle of latency, the same split the Vector DSP's FP units use with {@code executeStages} 1..4.
 * {@link #DEFAULT} is the least that meets the target clock ({@code TargetClock}, 5.75 ns at 180 nm)
 * for every unit at its defaults ({@code fp32-fma}: 202.5 MHz at 3, 99.7 MHz at 2); 0 is the
 * smallest (one combinational or one-cycle unit).
 */
public final class FpStages {
  /** The units' default: registers after the decode and products, before the rounder and inside it. */
  public static final int DEFAULT = 3;

  private FpStages() {
  }

  /** The {@code stages} parameter with {@link #DEFAULT}. */
  public static ParamSpec param() {
    return ParamSpec.integer("stages", DEFAULT, 0, 3, "internal pipeline registers: 0 none; 1 holds the exact "
        + "value before the rounder; 2 also the decoded operands and partial products; 3 also splits the rounder");
  }
}
