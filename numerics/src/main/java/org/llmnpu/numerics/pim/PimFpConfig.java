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
 * @param format weight element format: FP8 E4M3 or E5M2 (OCP)
 * @param input input element type ({@link PimInputFormat}): FP8 (by default the weights' format),
 *              BF16, MXFP8 or MXINT8 blocks
 * @param alignment {@link PimAlignment#PRE} or {@link PimAlignment#POST}
 * @param alignBits PRE: magnitude bits kept per aligned element (inputs and weights),
 *                  {@code max(mantissaBits) + 1 .. 16};
 *                  ignored (and reported as the significand width) for POST
 * @param rows K per row group (the macro's rows), 1..1024
 * @param icAccumDepth row groups folded in the periphery before a psum write-back, &ge; 1
 */
public record PimFpConfig(FloatFormat format, PimInputFormat input, PimAlignment alignment, int alignBits, int rows, int icAccumDepth) {

    /** Headroom of the accumulator above one row group's largest contribution. */
    public static final int HEADROOM_BITS = 8;

    public PimFpConfig {
        if (!format.equals(FloatFormat.FP8_E4M3) && !format.equals(FloatFormat.FP8_E5M2)) {
            throw new IllegalArgumentException("format must be FP8_E4M3 or FP8_E5M2, got " + format.name());
        }
        if (alignment == null) {
            throw new IllegalArgumentException("alignment must be PRE or POST, got null");
        }
        if (input == null) {
            input = PimInputFormat.fp8(format);
        }
        int sig = Math.max(format.mantissaBits(), input.mantissaBits()) + 1;
        if (alignment == PimAlignment.PRE && (alignBits < sig || alignBits > 16)) {
            throw new IllegalArgumentException("alignBits must be in [" + sig + ", 16] for " + format.name()
                + " weights and " + input.name() + " inputs, got " + alignBits);
        }
        if (alignment == PimAlignment.POST) {
            alignBits = format.mantissaBits() + 1;
        }
        if (rows < 1 || rows > 1024) {
            throw new IllegalArgumentException("rows must be in [1, 1024], got " + rows);
        }
        if (icAccumDepth < 1) {
            throw new IllegalArgumentException("icAccumDepth must be >= 1, got " + icAccumDepth);
        }
    }

    /** FP8 inputs of the weights' own format. */
    public PimFpConfig(FloatFormat format, PimAlignment alignment, int alignBits, int rows, int icAccumDepth) {
        this(format, null, alignment, alignBits, rows, icAccumDepth);
    }

    /**
     * Largest exponent shift of a product or a group sum:
     * {@code maxBiasedExponent(input) + maxBiasedExponent(weight) − 2}.
     */
    public int shiftMax() {
        return input.maxBiasedExponent() + PimFpFields.maxBiasedExponent(format) - 2;
    }

    /** Bits of the largest magnitude one row group adds to the accumulator. */
    public int groupBits() {
        int operands = alignment == PimAlignment.PRE ? 2 * alignBits
            : format.mantissaBits() + 1 + input.mantissaBits() + 1;
        return operands + ceilLog2(rows) + shiftMax();
    }

    /** Signed accumulator width: {@code groupBits + HEADROOM_BITS + 1}. */
    public int accWidth() {
        return groupBits() + HEADROOM_BITS + 1;
    }

    /**
     * Exponent of the accumulator's unit: POST {@code 2 − biasX − biasW − mX − mW} (the smallest
     * product quantum), PRE {@code 4 − biasX − biasW − 2·alignBits}.
     */
    public int accExponent() {
        int bias = format.bias() + input.bias();
        return alignment == PimAlignment.PRE
            ? 4 - bias - 2 * alignBits
            : 2 - bias - format.mantissaBits() - input.mantissaBits();
    }

    static int ceilLog2(int n) {
        return n <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(n - 1);
    }
}
