package org.llmnpu.numerics.pim;

import org.llmnpu.numerics.fp.FloatFormat;

/**
 * The fields of one FP code as the PiM datapath sees them: {@code value = ±significand ·
 * 2^(biasedExponent − bias − mantissaBits)}, with {@code biasedExponent = max(E, 1)} so that
 * subnormals (E = 0, no implicit bit) share the exponent of the smallest normal. Values and special
 * codes come from {@link FloatFormat} (the one FP decoder of the toolkit); this class only slices the
 * fields the hardware wires use.
 *
 * <p>NaN/Inf policy of the macro: a special code (NaN, or ±Inf where the format has them) enters the
 * datapath as zero (significand 0, biased exponent 1) and raises the macro's sticky {@code special}
 * flag; the result of a GEMM with the flag set is NaN as a whole.
 *
 * @param negative sign bit
 * @param biasedExponent {@code max(E, 1)}, 1..2^e − 1
 * @param significand integer significand, {@code 0..2^(m+1) − 1}
 * @param special the code is NaN or infinite
 */
public record PimFpFields(boolean negative, int biasedExponent, int significand, boolean special) {

    /** Slices a code of {@code format} (0..2^bits − 1). */
    public static PimFpFields of(FloatFormat format, int code) {
        if (code < 0 || code >= format.codeCount()) {
            throw new IllegalArgumentException("code must be in [0, " + (format.codeCount() - 1) + "] for "
                + format.name() + ", got " + code);
        }
        boolean special = format.isNaN(code) || format.isInfinite(code);
        int m = format.mantissaBits();
        boolean negative = format.isNegative(code);
        if (special) {
            return new PimFpFields(negative, 1, 0, true);
        }
        int e = (code >>> m) & ((1 << format.exponentBits()) - 1);
        int mant = code & ((1 << m) - 1);
        return new PimFpFields(negative, Math.max(e, 1), e == 0 ? mant : (1 << m) | mant, false);
    }

    /** Largest biased exponent of a finite value: 2^e − 2 (IEEE specials) or 2^e − 1 (E4M3). */
    public static int maxBiasedExponent(FloatFormat format) {
        int allOnes = (1 << format.exponentBits()) - 1;
        return format.specials() == FloatFormat.Specials.IEEE ? allOnes - 1 : allOnes;
    }

    /** Signed significand. */
    public long signedSignificand() {
        return negative ? -significand : significand;
    }
}
