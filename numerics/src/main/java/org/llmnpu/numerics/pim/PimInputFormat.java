package org.llmnpu.numerics.pim;

import org.llmnpu.numerics.fp.FloatFormat;
import org.llmnpu.numerics.mx.E8M0;

/**
 * The element type of the PiM macro's FP-mode inputs, and how the input periphery turns one element
 * into the fields the array uses ({@link PimFpFields}: sign, biased exponent {@code eb &ge; 1},
 * integer significand, value {@code ±significand · 2^(eb − bias − mantissaBits)}).
 *
 * <ul>
 *   <li>{@link #fp8(FloatFormat)}: OCP FP8 E4M3/E5M2 codes (the weights' own formats).</li>
 *   <li>{@link #BF16}: bfloat16 codes, 8 exponent bits, 7 mantissa bits, bias 127; exponent 255 is
 *       Inf/NaN; subnormals kept ({@code eb = max(E, 1)}).</li>
 *   <li>{@link #mxfp8(FloatFormat)}: OCP MX blocks of 32 FP8 elements sharing one E8M0 scale
 *       {@code S} (value {@code 2^(S − 127)}). The periphery folds the scale into the exponent:
 *       {@code eb = max(E, 1) + S}, {@code bias = elementBias + 127}, so the block scale costs
 *       exponent bits, not multipliers.</li>
 *   <li>{@link #MXINT8}: OCP MXINT8, blocks of 32 two's-complement INT8 elements {@code v} with the
 *       implicit element scale {@code 2^−6} and one E8M0 scale: {@code significand = |v|}
 *       (0..128, 8 bits, so {@code mantissaBits = 7}), {@code eb = 1 + S}, {@code bias = 127}.</li>
 * </ul>
 * NaN/Inf policy as for FP8 ({@link PimFpFields}): a NaN or infinite element, or the NaN scale
 * {@code 0xFF} (then every element of its block), enters as zero (significand 0, {@code eb = 1})
 * and raises the sticky {@code special} flag.
 *
 * @param name lower-case name ({@code fp8_e4m3}, {@code bf16}, {@code mxfp8_e4m3}, {@code mxint8})
 * @param codeBits bits of one element on the input bus
 * @param mantissaBits significand bits minus one
 * @param bias exponent bias of {@code eb} (scale included for MX)
 * @param maxBiasedExponent largest {@code eb} of a finite element (largest scale 254 included for MX)
 * @param element FP element format, or null for MXINT8
 * @param blockScaled whether elements come in blocks of {@link #BLOCK} with an E8M0 scale
 */
public record PimInputFormat(String name, int codeBits, int mantissaBits, int bias, int maxBiasedExponent,
                             FloatFormat element, boolean blockScaled) {

    /** MX block size along K. */
    public static final int BLOCK = 32;
    /** bfloat16. */
    public static final PimInputFormat BF16 = new PimInputFormat("bf16", 16, 7, 127, 254,
        new FloatFormat("bf16", 8, 7, 127, FloatFormat.Specials.IEEE), false);
    /** OCP MXINT8. */
    public static final PimInputFormat MXINT8 = new PimInputFormat("mxint8", 8, 7, 127, 255, null, true);

    /** Plain FP8 inputs of {@code f} (E4M3 or E5M2). */
    public static PimInputFormat fp8(FloatFormat f) {
        requireFp8(f);
        return new PimInputFormat(f.name(), 8, f.mantissaBits(), f.bias(), PimFpFields.maxBiasedExponent(f), f, false);
    }

    /** OCP MXFP8 blocks of {@code f} (E4M3 or E5M2) elements. */
    public static PimInputFormat mxfp8(FloatFormat f) {
        requireFp8(f);
        return new PimInputFormat("mx" + f.name(), 8, f.mantissaBits(), f.bias() + E8M0.BIAS,
            PimFpFields.maxBiasedExponent(f) + 254, f, true);
    }

    private static void requireFp8(FloatFormat f) {
        if (!FloatFormat.FP8_E4M3.equals(f) && !FloatFormat.FP8_E5M2.equals(f)) {
            throw new IllegalArgumentException("FP8 element format must be FP8_E4M3 or FP8_E5M2, got "
                + (f == null ? "null" : f.name()));
        }
    }

    /** Bits of the biased-exponent field the datapath carries ({@code maxBiasedExponent} fits). */
    public int exponentFieldBits() {
        return 32 - Integer.numberOfLeadingZeros(maxBiasedExponent);
    }

    /** The fields of element {@code code} in a block with scale {@code scale} (ignored unless MX). */
    public PimFpFields fields(int code, int scale) {
        if (code < 0 || code >= 1 << codeBits) {
            throw new IllegalArgumentException("input code must be in [0, " + ((1 << codeBits) - 1) + "] for " + name
                + ", got " + code);
        }
        if (blockScaled && (scale < 0 || scale > 255)) {
            throw new IllegalArgumentException("E8M0 scale must be in [0, 255], got " + scale);
        }
        boolean nanScale = blockScaled && scale == E8M0.NaN;
        int s = blockScaled && !nanScale ? scale : 0;
        if (element == null) {
            int v = (byte) code;
            if (nanScale) {
                return new PimFpFields(v < 0, 1, 0, true);
            }
            return new PimFpFields(v < 0, 1 + s, Math.abs(v), false);
        }
        PimFpFields f = PimFpFields.of(element, code);
        if (nanScale || f.special()) {
            return new PimFpFields(f.negative(), 1, 0, true);
        }
        return new PimFpFields(f.negative(), f.biasedExponent() + s, f.significand(), false);
    }

    /** The exact value of an element (NaN for specials). */
    public double value(int code, int scale) {
        PimFpFields f = fields(code, scale);
        if (f.special()) {
            return Double.NaN;
        }
        return Math.scalb((double) f.signedSignificand(), f.biasedExponent() - bias - mantissaBits);
    }

    /** Number of E8M0 scales per row of K elements (0 unless MX). */
    public int scalesPerRow(int k) {
        return blockScaled ? (k + BLOCK - 1) / BLOCK : 0;
    }
}
