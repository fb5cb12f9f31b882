package org.llmnpu.numerics.fp16;

import org.llmnpu.numerics.fp.FloatFormat;
import org.llmnpu.numerics.fp.Overflow;
import org.llmnpu.numerics.fp.Rounding;

/**
 * IEEE 754 binary16 on {@code short} bit patterns: 1 sign bit, 5 exponent bits (bias 15),
 * 10 mantissa bits; subnormals, ±0, ±infinity and NaN as IEEE 754 defines them.
 *
 * <p><b>Rounding.</b> Every operation rounds its exact result once, to nearest, ties to even
 * (RNE), with gradual underflow and overflow to ±infinity. A NaN result is always the canonical
 * quiet NaN {@link #NaN} = 0x7E00 (sign 0, payload MSB only); input NaN payloads are not
 * propagated, so hardware need only produce 0x7E00.
 *
 * <p><b>Why computing in double and rounding once is correctly rounded.</b> Every finite binary16
 * value is an integer multiple of 2^-24 with magnitude below 2^16. The exact sum or difference of
 * two of them is therefore an integer below 2^41 times 2^-24, which binary64 (53-bit significand)
 * holds exactly; the exact product of two 11-bit significands has 22 bits and an exponent within
 * binary64's range, so it is exact too. Hence {@link #add}, {@link #sub} and {@link #mul} round an
 * <em>exact</em> value once. For {@link #div} and {@link #sqrt} binary64 rounds first; because
 * 53 &ge; 2·11 + 2, that double rounding is innocuous (Figueroa, "When is double rounding
 * innocuous?", 1995), so those are correctly rounded as well.
 *
 * <p><b>Signed zeros.</b> x + (−x) = +0 under RNE; (−0) + (−0) = −0; products carry the XOR of the
 * signs, as in IEEE 754 and as binary64 arithmetic already does.
 */
public final class Fp16 {
    public static final short POSITIVE_ZERO = 0x0000;
    public static final short NEGATIVE_ZERO = (short) 0x8000;
    public static final short ONE = 0x3C00;
    public static final short POSITIVE_INFINITY = 0x7C00;
    public static final short NEGATIVE_INFINITY = (short) 0xFC00;
    /** Canonical quiet NaN produced by every operation. */
    public static final short NaN = 0x7E00;
    /** Largest finite value, 65504. */
    public static final short MAX_VALUE = 0x7BFF;
    /** Smallest positive normal value, 2^-14. */
    public static final short MIN_NORMAL = 0x0400;
    /** Smallest positive subnormal value, 2^-24. */
    public static final short MIN_SUBNORMAL = 0x0001;

    private static final FloatFormat F = FloatFormat.FP16;

    private Fp16() {
    }

    private static int code(short h) {
        return h & 0xFFFF;
    }

    /** Rounds a double once to binary16 (RNE, overflow to ±infinity, NaN to 0x7E00). */
    public static short fromDouble(double x) {
        return (short) F.encode(x, Rounding.NEAREST_EVEN, Overflow.INFINITY);
    }

    /** FP32 → FP16: rounds the float once (RNE); a float embeds exactly in double, so this is one rounding. */
    public static short fromFloat(float x) {
        return fromDouble(x);
    }

    /** Exact value as a double. */
    public static double toDouble(short h) {
        return F.decode(code(h));
    }

    /** FP16 → FP32: exact (every binary16 value, subnormals included, is a normal binary32 value). */
    public static float toFloat(short h) {
        return (float) toDouble(h);
    }

    public static boolean isNaN(short h) {
        return F.isNaN(code(h));
    }

    public static boolean isInfinite(short h) {
        return F.isInfinite(code(h));
    }

    /** True for +0 and −0. */
    public static boolean isZero(short h) {
        return (h & 0x7FFF) == 0;
    }

    /** Sign bit set (true for −0 and for NaN codes with the sign bit set). */
    public static boolean signBit(short h) {
        return h < 0;
    }

    /** a + b, correctly rounded. */
    public static short add(short a, short b) {
        return fromDouble(toDouble(a) + toDouble(b));
    }

    /** a − b, correctly rounded. */
    public static short sub(short a, short b) {
        return fromDouble(toDouble(a) - toDouble(b));
    }

    /** a · b, correctly rounded. */
    public static short mul(short a, short b) {
        return fromDouble(toDouble(a) * toDouble(b));
    }

    /**
     * Fused multiply-add {@code a·b + c} rounded once (RNE), IEEE 754 fusedMultiplyAdd; the
     * Vector DSP's {@code FMA16}. Specials and signed zeros as in {@link org.llmnpu.numerics.fp.Fma}.
     */
    public static short fma(short a, short b, short c) {
        return org.llmnpu.numerics.fp.Fma.fp16(a, b, c);
    }

    /** a / b, correctly rounded (x/±0 = ±infinity for x ≠ 0, 0/0 = NaN). */
    public static short div(short a, short b) {
        return fromDouble(toDouble(a) / toDouble(b));
    }

    /** Square root, correctly rounded; sqrt(−0) = −0, sqrt(x &lt; 0) = NaN. */
    public static short sqrt(short a) {
        return fromDouble(Math.sqrt(toDouble(a)));
    }

    /** Sign flip; exact, applies to NaN codes too (only the sign bit changes). */
    public static short neg(short a) {
        return (short) (a ^ 0x8000);
    }

    /** Clears the sign bit; exact. */
    public static short abs(short a) {
        return (short) (a & 0x7FFF);
    }

    /** a · 2^n, rounded once (RNE): exact unless the result is subnormal or overflows. */
    public static short scalb(short a, int n) {
        double v = toDouble(a);
        int clamped = Math.max(-100, Math.min(100, n));
        return fromDouble(Math.scalb(v, clamped));
    }

    /** Outcome of an IEEE comparison. */
    public enum Ordering { LESS, EQUAL, GREATER, UNORDERED }

    /** IEEE 754 comparison: UNORDERED if either is NaN; +0 and −0 are EQUAL. */
    public static Ordering compare(short a, short b) {
        double x = toDouble(a);
        double y = toDouble(b);
        if (Double.isNaN(x) || Double.isNaN(y)) {
            return Ordering.UNORDERED;
        }
        return x < y ? Ordering.LESS : x > y ? Ordering.GREATER : Ordering.EQUAL;
    }

    /** a == b (false if either is NaN; +0 == −0). */
    public static boolean eq(short a, short b) {
        return compare(a, b) == Ordering.EQUAL;
    }

    /** a &lt; b (false if either is NaN). */
    public static boolean lt(short a, short b) {
        return compare(a, b) == Ordering.LESS;
    }

    /** a &le; b (false if either is NaN). */
    public static boolean le(short a, short b) {
        Ordering o = compare(a, b);
        return o == Ordering.LESS || o == Ordering.EQUAL;
    }

    /**
     * IEEE 754-2019 maximumNumber: a NaN operand is ignored (the other operand is returned; two
     * NaNs give 0x7E00), and +0 is taken as greater than −0.
     */
    public static short max(short a, short b) {
        return pick(a, b, true);
    }

    /** IEEE 754-2019 minimumNumber: a NaN operand is ignored; −0 is taken as less than +0. */
    public static short min(short a, short b) {
        return pick(a, b, false);
    }

    private static short pick(short a, short b, boolean larger) {
        boolean nanA = isNaN(a);
        boolean nanB = isNaN(b);
        if (nanA && nanB) {
            return NaN;
        }
        if (nanA) {
            return b;
        }
        if (nanB) {
            return a;
        }
        double x = toDouble(a);
        double y = toDouble(b);
        if (x == y) {
            boolean aNegative = signBit(a);
            return (aNegative == larger) ? b : a;
        }
        return (x > y) == larger ? a : b;
    }

    /**
     * FP16 → integer with a scale: {@code q = saturate(roundHalfEven(x · invScale))}. The product of
     * two binary16 values is exact in double, so the only rounding is the one to an integer (ties to
     * even); results beyond the format saturate to its min/max, ±infinity saturate, NaN gives 0.
     *
     * @param x the value
     * @param invScale the reciprocal of the quantization scale, as FP16 (hardware multiplies, never divides)
     * @param format target integer format
     */
    public static int toInt(short x, short invScale, IntFormat format) {
        double product = toDouble(x) * toDouble(invScale);
        if (Double.isNaN(product)) {
            return 0;
        }
        if (Double.isInfinite(product)) {
            return product > 0 ? format.max() : format.min();
        }
        double r = Math.rint(product);
        if (r >= format.max()) {
            return format.max();
        }
        if (r <= format.min()) {
            return format.min();
        }
        return (int) r;
    }

    /**
     * Integer → FP16 with a scale: {@code round(q · scale)} rounded once (RNE). A 32-bit integer
     * times an 11-bit significand is at most 43 bits, exact in double, so the result is correctly
     * rounded; overflow gives ±infinity. Callers converting INT8/INT16 pass values in that range.
     */
    public static short fromInt(int q, short scale) {
        return fromDouble(q * toDouble(scale));
    }

    /**
     * Error of {@code got} against an exact reference, in units of the binary16 ULP at the
     * reference: |got − ref| / 2^(max(floor(log2|ref|), −14) − 10). 0 if both are the same NaN
     * class or the same infinity, and if {@code got} is the correctly rounded value of an
     * out-of-range reference; +infinity for any other NaN/infinity mismatch.
     */
    public static double ulpError(short got, double reference) {
        if (Double.isNaN(reference) || isNaN(got)) {
            return Double.isNaN(reference) && isNaN(got) ? 0 : Double.POSITIVE_INFINITY;
        }
        if (isInfinite(got) || Double.isInfinite(reference)) {
            return fromDouble(reference) == got ? 0 : Double.POSITIVE_INFINITY;
        }
        double ref = Math.abs(reference);
        int e = ref == 0 ? -14 : Math.max(Math.getExponent(ref), -14);
        e = Math.min(e, 15);
        return Math.abs(toDouble(got) - reference) / Math.scalb(1.0, e - 10);
    }
}
