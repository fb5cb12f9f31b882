package org.llmnpu.rtl.mx;

import java.util.Arrays;
import java.util.List;

/**
 * The OCP MX v1.0 element types the MX units are generated for, with their CLI names. INT8 is
 * two's complement with an implied scale 2^-6; the others are floats of the given layout. Mirrors
 * {@code org.llmnpu.numerics.mx.MxElementType}.
 */
public enum MxFormat {
  FP8_E4M3("fp8_e4m3", new FpLayout(4, 3, 7, FpLayout.Specials.NAN_ALL_ONES)),
  FP8_E5M2("fp8_e5m2", new FpLayout(5, 2, 15, FpLayout.Specials.IEEE)),
  FP6_E3M2("fp6_e3m2", new FpLayout(3, 2, 3, FpLayout.Specials.NONE)),
  FP6_E2M3("fp6_e2m3", new FpLayout(2, 3, 1, FpLayout.Specials.NONE)),
  FP4_E2M1("fp4_e2m1", new FpLayout(2, 1, 1, FpLayout.Specials.NONE)),
  INT8("int8", null);

  /** MXINT8 implied scale exponent: value = code · 2^-6. */
  public static final int INT8_SCALE_EXPONENT = -6;

  /**
   * INT8 seen as a float layout for rounding: 7 mantissa bits, bias 0, so every value below 2 is
   * a "subnormal" whose magnitude field is the integer |code| (quantum 2^-6) and 2.0 is 128.
   */
  static final FpLayout INT8_AS_FLOAT = new FpLayout(1, 7, 0, FpLayout.Specials.NONE);

  private final String cliName;
  private final FpLayout layout;

  MxFormat(String cliName, FpLayout layout) {
    this.cliName = cliName;
    this.layout = layout;
  }

  /** Name on the command line, e.g. {@code fp4_e2m1}. */
  public String cliName() {
    return cliName;
  }

  /** The float layout, or null for INT8. */
  public FpLayout layout() {
    return layout;
  }

  /** Code width in bits. */
  public int bits() {
    return layout == null ? 8 : layout.totalBits();
  }

  /** Exponent of one step between codes: every value is an integer multiple of 2^quantumExponent. */
  public int quantumExponent() {
    return layout == null ? INT8_SCALE_EXPONENT : 1 - layout.bias() - layout.mantissaBits();
  }

  /** OCP emax: exponent of the largest normal (0 for INT8). */
  public int emax() {
    if (layout == null) {
      return 0;
    }
    int top = layout.specials() == FpLayout.Specials.IEEE ? layout.maxExponentField() - 1 : layout.maxExponentField();
    return top - layout.bias();
  }

  /** Bits of the largest element integer magnitude |value| · 2^-quantumExponent (INT8: 128 → 8). */
  public int integerMagnitudeBits() {
    if (layout == null) {
      return 8;
    }
    long max = maxIntegerMagnitude();
    return 64 - Long.numberOfLeadingZeros(max);
  }

  /** Largest element integer magnitude (INT8: 128). */
  public long maxIntegerMagnitude() {
    if (layout == null) {
      return 128;
    }
    int m = layout.mantissaBits();
    long maxMag = layout.maxFiniteMagnitude();
    long field = maxMag >>> m;
    long significand = (1L << m) | (maxMag & ((1L << m) - 1));
    return significand << (field - 1);
  }

  /** The format with this CLI name, or an exception naming the parameter and the allowed values. */
  public static MxFormat fromCliName(String name) {
    for (MxFormat f : values()) {
      if (f.cliName.equals(name)) {
        return f;
      }
    }
    throw new IllegalArgumentException("parameter 'format' = '" + name + "' is not allowed; allowed: "
        + String.join(", ", cliNames()));
  }

  /** All CLI names in declaration order. */
  public static List<String> cliNames() {
    return Arrays.stream(values()).map(MxFormat::cliName).toList();
  }
}
