package org.llmnpu.rtl.mx;

/**
 * Field layout of a binary floating-point format as the MX hardware sees it: sign, exponent
 * field, mantissa field, bias, and which codes are special. The same definitions as
 * {@code org.llmnpu.numerics.fp.FloatFormat} (the golden model), restated here because RTL
 * generators do not depend on the numerics module at run time.
 *
 * @param exponentBits width of the exponent field
 * @param mantissaBits width of the mantissa field (no implicit bit)
 * @param bias exponent bias
 * @param specials which codes are infinities or NaN
 */
public record FpLayout(int exponentBits, int mantissaBits, int bias, Specials specials) {

  /** {@code IEEE}: all-ones exponent is ±∞/NaN; {@code NAN_ALL_ONES}: only S.1111.111 is NaN (E4M3); {@code NONE}. */
  public enum Specials { IEEE, NAN_ALL_ONES, NONE }

  public static final FpLayout FP32 = new FpLayout(8, 23, 127, Specials.IEEE);
  public static final FpLayout FP16 = new FpLayout(5, 10, 15, Specials.IEEE);

  public FpLayout {
    if (exponentBits < 1 || exponentBits > 11 || mantissaBits < 1 || mantissaBits > 52) {
      throw new IllegalArgumentException("exponentBits must be in 1..11 and mantissaBits in 1..52, got "
          + exponentBits + ", " + mantissaBits);
    }
  }

  /** Sign + exponent + mantissa. */
  public int totalBits() {
    return 1 + exponentBits + mantissaBits;
  }

  /** Largest exponent field value. */
  public int maxExponentField() {
    return (1 << exponentBits) - 1;
  }

  /** Code (without sign) of the largest finite magnitude. */
  public long maxFiniteMagnitude() {
    long mantissaOnes = (1L << mantissaBits) - 1;
    return switch (specials) {
      case IEEE -> ((long) (maxExponentField() - 1) << mantissaBits) | mantissaOnes;
      case NAN_ALL_ONES -> ((long) maxExponentField() << mantissaBits) | (mantissaOnes - 1);
      case NONE -> ((long) maxExponentField() << mantissaBits) | mantissaOnes;
    };
  }

  /** Code (without sign) of infinity; IEEE layouts only. */
  public long infinityMagnitude() {
    return (long) maxExponentField() << mantissaBits;
  }

  /** Canonical NaN code: positive, exponent all ones, mantissa MSB set (IEEE) or all ones (E4M3). */
  public long canonicalNaN() {
    return switch (specials) {
      case IEEE -> infinityMagnitude() | (1L << (mantissaBits - 1));
      case NAN_ALL_ONES -> ((long) maxExponentField() << mantissaBits) | ((1L << mantissaBits) - 1);
      case NONE -> throw new IllegalArgumentException("this layout has no NaN");
    };
  }
}
