package org.llmnpu.numerics.requant;

/**
 * A real scale {@code s ≈ multiplier · 2^(shift − 31)} as TFLite QuantizeMultiplier encodes it: a
 * Q0.31 multiplier in [2^30, 2^31 − 1] (or 0 for a zero scale) and a power-of-two shift, positive
 * meaning left.
 *
 * <p>The shift range is what the PPM's per-channel shift register holds (signed 6 bits, its left
 * and right shift amounts 5 bits each): −31 (a right shift by 31) to 31 (a left shift by 31). −32
 * would need a 32-bit right shift and is refused. Shift 31 is reached only through the rounding
 * carry at the top of the scale range (scales in [2^31 − 2^−1, …) would need 32).
 *
 * @param multiplier Q0.31 mantissa, 0 or in [2^30, 2^31 − 1]
 * @param shift exponent in [−31, 31]
 */
public record QuantizedMultiplier(int multiplier, int shift) {
    /** Smallest shift: a right shift by 31. */
    public static final int MIN_SHIFT = -31;
    /** Largest shift: a left shift by 31. */
    public static final int MAX_SHIFT = 31;
    /** The scales {@link #fromScale} encodes are below this bound (2^31 − 1/2): larger ones round to shift 32. */
    public static final double SCALE_LIMIT = 0x1p31 - 0.5;

    public QuantizedMultiplier {
        if (multiplier != 0 && multiplier < (1 << 30)) {
            throw new IllegalArgumentException("multiplier must be 0 or in [2^30, 2^31-1], got " + multiplier);
        }
        if (shift < MIN_SHIFT || shift > MAX_SHIFT) {
            throw new IllegalArgumentException("shift must be in [" + MIN_SHIFT + ", " + MAX_SHIFT + "], got " + shift);
        }
    }

    /**
     * TFLite QuantizeMultiplier: {@code scale = q · 2^shift} with q in [0.5, 1) (frexp), then
     * {@code multiplier = round(q · 2^31)} rounding half away from zero; if that rounds up to
     * 2^31 it is halved and the shift incremented (the carry: {@code 0x1.fffffffffffffp+29} gives
     * multiplier 2^30, shift 31). Scales below 2^-32 (shift &lt; −31) become multiplier 0, shift 0.
     *
     * @param scale a finite real scale in [0, 2^31 − 1/2) ({@link #SCALE_LIMIT}): the largest
     *              scales whose shift, after the carry, fits the PPM's {@link #MAX_SHIFT}
     * @throws IllegalArgumentException naming {@code scale} and the allowed range otherwise
     */
    public static QuantizedMultiplier fromScale(double scale) {
        if (!(scale >= 0) || !(scale < SCALE_LIMIT)) {
            throw new IllegalArgumentException("scale must be finite and in [0, 2^31 - 0.5) (a larger scale needs a "
                    + "shift above " + MAX_SHIFT + ", more than the PPM's shift register holds), got " + scale);
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
        if (shift < MIN_SHIFT) {
            return new QuantizedMultiplier(0, 0);
        }
        return new QuantizedMultiplier((int) qFixed, shift);
    }

    /** The exact real value {@code multiplier · 2^(shift − 31)} this encoding represents. */
    public double realValue() {
        return Math.scalb((double) multiplier, shift - 31);
    }
}
