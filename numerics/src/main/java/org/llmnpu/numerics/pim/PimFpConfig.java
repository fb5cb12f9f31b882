package org.llmnpu.numerics.pim;

import org.llmnpu.numerics.fp.FloatFormat;

/**
 * Parameters of the PiM macro's FP mode that fix its numerics.
 *
 * <p>Accumulator: a signed fixed-point integer of {@link #accWidth()} bits whose unit is
 * {@code 2^accExponent()}. Its width holds one row group's largest possible contribution
 * ({@link #groupBits()}) with {@link #HEADROOM_BITS} bits to spare, so 2^8 row groups (K up to
 * 16,384 on a 64-row macro) cannot overflow; beyond that the periphery saturates once per row group
 * and raises the sticky overflow flag, as in INT mode.
 *
 * @param format element format of inputs and weights: FP8 E4M3 or E5M2 (OCP)
 * @param alignment {@link PimAlignment#PRE} or {@link PimAlignment#POST}
 * @param alignBits PRE: magnitude bits kept per aligned element, {@code mantissaBits + 1 .. 16};
 *                  ignored (and reported as the significand width) for POST
 * @param rows K per row group (the macro's rows), 1..1024
 * @param icAccumDepth row groups folded in the periphery before a psum write-back, &ge; 1
 */
public record PimFpConfig(FloatFormat format, PimAlignment alignment, int alignBits, int rows, int icAccumDepth) {

    /** Headroom of the accumulator above one row group's largest contribution. */
    public static final int HEADROOM_BITS = 8;

    public PimFpConfig {
        if (!format.equals(FloatFormat.FP8_E4M3) && !format.equals(FloatFormat.FP8_E5M2)) {
            throw new IllegalArgumentException("format must be FP8_E4M3 or FP8_E5M2, got " + format.name());
        }
        if (alignment == null) {
            throw new IllegalArgumentException("alignment must be PRE or POST, got null");
        }
        int sig = format.mantissaBits() + 1;
        if (alignment == PimAlignment.PRE && (alignBits < sig || alignBits > 16)) {
            throw new IllegalArgumentException("alignBits must be in [" + sig + ", 16] for " + format.name()
                + ", got " + alignBits);
        }
        if (alignment == PimAlignment.POST) {
            alignBits = sig;
        }
        if (rows < 1 || rows > 1024) {
            throw new IllegalArgumentException("rows must be in [1, 1024], got " + rows);
        }
        if (icAccumDepth < 1) {
            throw new IllegalArgumentException("icAccumDepth must be >= 1, got " + icAccumDepth);
        }
    }

    /** Largest exponent shift of a product or a group sum: {@code 2·maxBiasedExponent − 2}. */
    public int shiftMax() {
        return 2 * PimFpFields.maxBiasedExponent(format) - 2;
    }

    /** Bits of the largest magnitude one row group adds to the accumulator. */
    public int groupBits() {
        int operand = alignment == PimAlignment.PRE ? alignBits : format.mantissaBits() + 1;
        return 2 * operand + ceilLog2(rows) + shiftMax();
    }

    /** Signed accumulator width: {@code groupBits + HEADROOM_BITS + 1}. */
    public int accWidth() {
        return groupBits() + HEADROOM_BITS + 1;
    }

    /**
     * Exponent of the accumulator's unit: POST {@code 2 − 2·bias − 2·m} (the smallest product
     * quantum), PRE {@code 4 − 2·bias − 2·alignBits}.
     */
    public int accExponent() {
        int bias = format.bias();
        return alignment == PimAlignment.PRE
            ? 4 - 2 * bias - 2 * alignBits
            : 2 - 2 * bias - 2 * format.mantissaBits();
    }

    static int ceilLog2(int n) {
        return n <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(n - 1);
    }
}
