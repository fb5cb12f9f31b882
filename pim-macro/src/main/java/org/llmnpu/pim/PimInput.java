package org.llmnpu.pim;

import java.util.List;
import java.util.Locale;

/**
 * Input element type of the PiM macro's FP modes (weights stay FP8 codes of {@link PimPrecision}):
 * <ul>
 *   <li>{@link #FP8}: FP8 codes of the weights' own format;</li>
 *   <li>{@link #BF16}: bfloat16 codes (16-bit input bus lanes, 8-bit significands);</li>
 *   <li>{@link #MXFP8}: OCP MX blocks of 32 FP8 elements (the weights' format) with one E8M0 scale
 *       each on the {@code inScale} port;</li>
 *   <li>{@link #MXINT8}: OCP MXINT8 blocks of 32 INT8 elements (implicit scale 2^−6) with one E8M0
 *       scale each.</li>
 * </ul>
 * The input periphery folds an MX block's scale into its elements' exponents
 * ({@code eb = max(E, 1) + S}; MXINT8 {@code eb = 1 + S}, significand {@code |v|}), so the array
 * and the alignment see one wider exponent; golden model {@code numerics.pim.PimInputFormat}.
 */
public enum PimInput {
  FP8, BF16, MXFP8, MXINT8;

  public boolean blockScaled() {
    return this == MXFP8 || this == MXINT8;
  }

  /** Bits of one element on the input bus. */
  public int codeBits() {
    return this == BF16 ? 16 : 8;
  }

  /** Significand bits minus one. */
  public int mantissaBits(PimPrecision weights) {
    return switch (this) {
      case FP8, MXFP8 -> weights.mantissaBits;
      case BF16, MXINT8 -> 7;
    };
  }

  /** Largest biased exponent of a finite element (largest scale 254 included for MX). */
  public int maxBiasedExponent(PimPrecision weights) {
    return switch (this) {
      case FP8 -> weights.maxBiasedExponent;
      case BF16 -> 254;
      case MXFP8 -> weights.maxBiasedExponent + 254;
      case MXINT8 -> 255;
    };
  }

  /** Lower-case name as parameters write it. */
  public String cliName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static List<String> cliNames() {
    return java.util.Arrays.stream(values()).map(PimInput::cliName).toList();
  }

  /** Parses a {@link #cliName()}. */
  public static PimInput parse(String s) {
    for (PimInput p : values()) {
      if (p.cliName().equals(s)) {
        return p;
      }
    }
    throw new IllegalArgumentException("input must be one of " + String.join(", ", cliNames()) + ", got '" + s + "'");
  }
}
