package org.llmnpu.isa.dsp;

/**
 * Special cases that {@link DspOp#FIX} applies to a computed function value {@code y} of the
 * FP16 argument {@code x} (the polynomial path is computed for every lane and then overridden),
 * as {@code org.llmnpu.numerics.vector.Fp16Math} defines them.
 */
public enum DspFix {
  /** exp: NaN → NaN; x ≥ 12 → +∞; x ≤ −18 → +0; otherwise y. */
  EXP(0),
  /** exp before scaling ({@code Fp16Math.expParts}): NaN → NaN; x ≥ 12 → +∞; x ≤ −40 → +0; otherwise y. */
  EXP_PARTS(1),
  /** reciprocal: NaN → NaN; ±0 → ±∞; ±∞ → ±0; otherwise y with the sign of x. */
  RECIPROCAL(2),
  /** rsqrt: NaN or x &lt; 0 → NaN; ±0 → ±∞; +∞ → +0; otherwise y. */
  RSQRT(3);

  private final int code;

  DspFix(int code) {
    this.code = code;
  }

  /** The aux field value. */
  public int code() {
    return code;
  }
}
