package org.llmnpu.numerics.requant;

/**
 * A real scale {@code s ≈ multiplier · 2^(shift − 31)} as TFLite QuantizeMultiplier encodes it: a
 * Q0.31 multiplier in [2^30, 2^31 − 1] (or 0 for a zero scale) and a power-of-two shift, positive
 * meaning left.
 *
 * @param multiplier Q0.31 mantissa, 0 or in [2^30, 2^31 − 1]
 * @param shift exponent in [−31, 30]
 */
public record QuantizedMultiplier(int multiplier, int shift) {

    public QuantizedMultiplier {
        if (multiplier != 0 && multiplier < (1 << 30)) {
            throw new IllegalArgumentException("multiplier must be 0 or in [2^30, 2^31-1], got " + multiplier);
        }
        if (shift < -31 || shift > 30) {
            throw new IllegalArgumentException("shift must be in [-31, 30], got " + shift);
        }
    }

    /**
     * TFLite QuantizeMultiplier: {@code scale = q · 2^shift} with q in [0.5, 1) (frexp), then
     * {@code multiplier = round(q · 2^31)} rounding half away from zero; if that rounds up to
     * 2^31 it is halved and the shift incremented. Scales below 2^-32 (shift &lt; −31) become
     * multiplier 0, shift 0.
     *
     * @param scale a finite real scale in [0, 2^30)
     */
    public static QuantizedMultiplier fromScale(double scale) {
        if (!(scale >= 0) || Double.isInfinite(scale) || scale >= 0x1p30) {
            throw new IllegalArgumentException("scale must be finite and in [0, 2^30), got " + scale);
        }
        if (scale == 0) {
            return new QuantizedMultiplier(0, 0);
        }
        int shift = Math.getExponent(scale) + 1;
        double q = Math.scalb(scale, -shift);
        long qFixed = Math.round(q * 0x1p31);
        if (qFixed == (1L << 31)) {
            qFixed /= 2;
            shift++;
        }
        if (shift < -31) {
            return new QuantizedMultiplier(0, 0);
        }
        return new QuantizedMultiplier((int) qFixed, shift);
    }

    /** The exact real value {@code multiplier · 2^(shift − 31)} this encoding represents. */
    public double realValue() {
        return Math.scalb((double) multiplier, shift - 31);
    }
}
