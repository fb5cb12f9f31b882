package org.llmnpu.numerics.mx;

import org.llmnpu.numerics.fp.FloatFormat;
import org.llmnpu.numerics.fp.Overflow;
import org.llmnpu.numerics.fp.Rounding;

/**
 * The element data types of OCP Microscaling Formats v1.0 and their codes.
 *
 * <table>
 *   <caption>element types</caption>
 *   <tr><th>type</th><th>bits</th><th>emax</th><th>max normal</th><th>specials</th></tr>
 *   <tr><td>FP8 E4M3</td><td>8</td><td>8</td><td>448</td><td>NaN = S.1111.111, no infinity</td></tr>
 *   <tr><td>FP8 E5M2</td><td>8</td><td>15</td><td>57344</td><td>IEEE infinities and NaN</td></tr>
 *   <tr><td>FP6 E3M2</td><td>6</td><td>4</td><td>28</td><td>none</td></tr>
 *   <tr><td>FP6 E2M3</td><td>6</td><td>2</td><td>7.5</td><td>none</td></tr>
 *   <tr><td>FP4 E2M1</td><td>4</td><td>2</td><td>6</td><td>none</td></tr>
 *   <tr><td>INT8</td><td>8</td><td>0</td><td>127/64 = 1.984375</td><td>none</td></tr>
 * </table>
 *
 * <p>MXINT8 elements are 8-bit two's complement with an implied scale of 2^-6: code c (0..255,
 * read as a signed byte b) has value b/64, so the range is [−2, 1.984375].
 *
 * <p>{@link #encode} is the element conversion of the MX quantizer: one rounding of an exact real
 * value with the given {@link Rounding}, subnormals kept, and saturation of anything beyond the
 * largest magnitude to ±max (for INT8: to [−128, 127]). It never produces NaN or infinity.
 */
public enum MxElementType {
    FP8_E4M3(FloatFormat.FP8_E4M3),
    FP8_E5M2(FloatFormat.FP8_E5M2),
    FP6_E3M2(FloatFormat.FP6_E3M2),
    FP6_E2M3(FloatFormat.FP6_E2M3),
    FP4_E2M1(FloatFormat.FP4_E2M1),
    INT8(null);

    /** MXINT8 implied scale exponent: value = code · 2^-6. */
    public static final int INT8_SCALE_EXPONENT = -6;

    private final FloatFormat format;

    MxElementType(FloatFormat format) {
        this.format = format;
    }

    /** The float format of this element, or null for INT8. */
    public FloatFormat format() {
        return format;
    }

    /** Code width in bits. */
    public int bits() {
        return format == null ? 8 : format.totalBits();
    }

    /** Number of codes, 2^bits. */
    public int codeCount() {
        return 1 << bits();
    }

    /** emax of the element type as the OCP spec defines it (exponent of the largest normal). */
    public int emax() {
        return format == null ? 0 : format.emax();
    }

    /** Largest magnitude. */
    public double maxNormal() {
        return format == null ? 127.0 / 64 : format.maxFinite();
    }

    /**
     * Exponent of the smallest step between codes: every element value is an integer multiple of
     * 2^quantumExponent (E4M3 −9, E5M2 −16, E3M2 −4, E2M3 −3, E2M1 −1, INT8 −6).
     */
    public int quantumExponent() {
        return format == null ? INT8_SCALE_EXPONENT : format.emin() - format.mantissaBits();
    }

    /** Exact value of a code (NaN/±infinity for the FP8 special codes). */
    public double decode(int code) {
        if (format != null) {
            return format.decode(code);
        }
        if (code < 0 || code > 255) {
            throw new IllegalArgumentException("INT8 code must be in [0, 255], got " + code);
        }
        return Math.scalb((double) (byte) code, INT8_SCALE_EXPONENT);
    }

    /** Whether the code is NaN (only FP8 types have NaN codes). */
    public boolean isNaN(int code) {
        return format != null && format.isNaN(code);
    }

    /** Whether the code is ±infinity (only E5M2 has them). */
    public boolean isInfinite(int code) {
        return format != null && format.isInfinite(code);
    }

    /** Rounds a finite real value once to this element type, saturating (see class comment). */
    public int encode(double value, Rounding rounding) {
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException("element value must be finite, got " + value);
        }
        if (format != null) {
            return format.encode(value, rounding, Overflow.SATURATE);
        }
        double scaled = Math.scalb(value, -INT8_SCALE_EXPONENT);
        double magnitude = Math.abs(scaled);
        double rounded = switch (rounding) {
            case NEAREST_EVEN -> Math.rint(magnitude);
            case NEAREST_AWAY -> Math.floor(magnitude + 0.5);
            case TOWARD_ZERO -> Math.floor(magnitude);
        };
        long signed = (long) Math.copySign(rounded, scaled);
        return (int) Math.max(-128, Math.min(127, signed)) & 0xFF;
    }
}
