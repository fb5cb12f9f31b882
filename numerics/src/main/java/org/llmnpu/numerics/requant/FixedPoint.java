package org.llmnpu.numerics.requant;

/**
 * The integer primitives of the gemmlowp / TFLite fixed-point requantization convention, on
 * 32-bit two's-complement values. Each is what a PPM pipeline stage computes, bit for bit.
 */
public final class FixedPoint {
    private FixedPoint() {
    }

    /** a + b clamped to the INT32 range (the bias add). */
    public static int saturatingAdd(int a, int b) {
        return saturateInt32((long) a + b);
    }

    /** Clamps a 64-bit value into INT32. */
    public static int saturateInt32(long v) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v));
    }

    /**
     * gemmlowp SaturatingRoundingDoublingHighMul: the high 32 bits of {@code 2·a·b}, rounded,
     * i.e. {@code floor(a·b / 2^31 + 1/2)} — ties round toward +infinity. The single overflowing
     * case {@code a = b = −2^31} (exact result +2^31) saturates to {@code 2^31 − 1}.
     */
    public static int saturatingRoundingDoublingHighMul(int a, int b) {
        if (a == Integer.MIN_VALUE && b == Integer.MIN_VALUE) {
            return Integer.MAX_VALUE;
        }
        long ab = (long) a * b;
        long nudge = ab >= 0 ? (1L << 30) : 1 - (1L << 30);
        // Java long division truncates toward zero, as the C++ reference does.
        return (int) ((ab + nudge) / (1L << 31));
    }

    /**
     * gemmlowp RoundingDivideByPOT: {@code x / 2^exponent} rounded to nearest, ties away from zero,
     * for {@code exponent} in [0, 31]. Computed as an arithmetic shift plus a rounding increment:
     * {@code (x >> e) + (remainder > threshold ? 1 : 0)} with {@code remainder = x & (2^e − 1)} and
     * {@code threshold = (2^e − 1) >> 1, plus 1 if x < 0}.
     */
    public static int roundingDivideByPOT(int x, int exponent) {
        if (exponent < 0 || exponent > 31) {
            throw new IllegalArgumentException("exponent must be in [0, 31], got " + exponent);
        }
        return (int) roundingDivideByPOT((long) x, exponent);
    }

    /**
     * {@link #roundingDivideByPOT(int, int)} on a wider signed value: {@code x / 2^exponent} rounded to nearest, ties
     * away from zero, for {@code exponent} in [0, 62] (the gated PPM's final shift of a 41-bit product).
     */
    public static long roundingDivideByPOT(long x, int exponent) {
        if (exponent < 0 || exponent > 62) {
            throw new IllegalArgumentException("exponent must be in [0, 62], got " + exponent);
        }
        long mask = (1L << exponent) - 1;
        long remainder = x & mask;
        long threshold = (mask >> 1) + (x < 0 ? 1 : 0);
        return (x >> exponent) + (remainder > threshold ? 1 : 0);
    }

    /**
     * {@code x · 2^shift} clamped to INT32, for {@code shift} in [0, 31]. (TFLite leaves overflow of
     * this left shift undefined; our hardware saturates.)
     */
    public static int saturatingLeftShift(int x, int shift) {
        if (shift < 0 || shift > 31) {
            throw new IllegalArgumentException("shift must be in [0, 31], got " + shift);
        }
        return saturateInt32((long) x << shift);
    }

    /**
     * TFLite MultiplyByQuantizedMultiplier: with {@code left = max(shift, 0)} and
     * {@code right = max(−shift, 0)}, returns
     * {@code roundingDivideByPOT(srdhm(saturatingLeftShift(x, left), multiplier), right)} — approximately
     * {@code x · multiplier · 2^(shift − 31)}.
     */
    public static int multiplyByQuantizedMultiplier(int x, int multiplier, int shift) {
        int left = Math.max(shift, 0);
        int right = Math.max(-shift, 0);
        return roundingDivideByPOT(saturatingRoundingDoublingHighMul(saturatingLeftShift(x, left), multiplier), right);
    }
}
