package org.llmnpu.pim;

import java.util.List;
import java.util.Locale;

/**
 * Weight (and, for FP, input) element type of the PiM macro. INT modes multiply signed integer
 * weights by signed {@code inBits}-bit inputs; FP modes take OCP FP8 codes for both.
 */
public enum PimPrecision {
  INT8(8, 0, 0, 0, 0),
  INT4(4, 0, 0, 0, 0),
  /** OCP FP8 E4M3: bias 7, no infinities, NaN = S.1111.111, largest biased exponent 15. */
  FP8_E4M3(8, 4, 3, 7, 15),
  /** OCP FP8 E5M2: bias 15, IEEE infinities/NaN (exponent 31), largest finite biased exponent 30. */
  FP8_E5M2(8, 5, 2, 15, 30);

  /** Bits of one stored weight code (INT modes) or FP8 code. */
  public final int codeBits;
  public final int exponentBits;
  public final int mantissaBits;
  public final int bias;
  /** Largest biased exponent of a finite code. */
  public final int maxBiasedExponent;

  PimPrecision(int codeBits, int exponentBits, int mantissaBits, int bias, int maxBiasedExponent) {
    this.codeBits = codeBits;
    this.exponentBits = exponentBits;
    this.mantissaBits = mantissaBits;
    this.bias = bias;
    this.maxBiasedExponent = maxBiasedExponent;
  }

  public boolean isFp() {
    return exponentBits > 0;
  }

  /** Lower-case name as parameters write it: {@code int8}, {@code fp8_e4m3}. */
  public String cliName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static List<String> cliNames() {
    return java.util.Arrays.stream(values()).map(PimPrecision::cliName).toList();
  }

  /** Parses a {@link #cliName()}. */
  public static PimPrecision parse(String s) {
    for (PimPrecision p : values()) {
      if (p.cliName().equals(s)) {
        return p;
      }
    }
    throw new IllegalArgumentException("precision must be one of " + String.join(", ", cliNames()) + ", got '" + s + "'");
  }
}
