package org.llmnpu.numerics.pim;

import org.llmnpu.numerics.fp.FloatFormat;

/**
 * Pre-alignment of one vector of FP codes (an input vector's row group, or one weight column's row
 * group) to its largest exponent, exactly as the macro's input aligner does it:
 * {@code ebmax = max_i biasedExponent_i} (specials count as zero, biased exponent 1) and
 * <pre>  aligned_i = ± ((significand_i · 2^(alignBits − 1 − m)) >> (ebmax − biasedExponent_i))</pre>
 * a right shift that drops the low bits (truncation of the magnitude toward zero; a shift of
 * {@code alignBits} or more gives 0). The element's value is then approximated by
 * {@code aligned_i · 2^(ebmax − bias − alignBits + 1)}; the error is the dropped bits.
 */
public final class PimPrealign {
    private PimPrealign() {
    }

    /** Aligned signed integers (|v| &lt; 2^alignBits), the group's biased exponent, and whether a special was seen. */
    public record Aligned(int[] ints, int maxBiasedExponent, boolean special) {
        public Aligned {
            ints = ints.clone();
        }

        @Override
        public int[] ints() {
            return ints.clone();
        }
    }

    /** Aligns {@code codes} of {@code format} to {@code alignBits} magnitude bits (see class comment). */
    public static Aligned align(FloatFormat format, int[] codes, int alignBits) {
        PimFpFields[] f = new PimFpFields[codes.length];
        for (int i = 0; i < codes.length; i++) {
            f[i] = PimFpFields.of(format, codes[i]);
        }
        return align(f, format.mantissaBits(), alignBits);
    }

    /**
     * Aligns already sliced elements with {@code m} mantissa bits (BF16, MX blocks with their scale
     * folded into {@code biasedExponent}: see {@link PimInputFormat#fields}).
     */
    public static Aligned align(PimFpFields[] f, int m, int alignBits) {
        if (alignBits < m + 1 || alignBits > 30) {
            throw new IllegalArgumentException("alignBits must be in [" + (m + 1) + ", 30], got " + alignBits);
        }
        int ebmax = 1;
        boolean special = false;
        for (PimFpFields x : f) {
            ebmax = Math.max(ebmax, x.biasedExponent());
            special |= x.special();
        }
        int[] ints = new int[f.length];
        for (int i = 0; i < f.length; i++) {
            int d = ebmax - f[i].biasedExponent();
            long mag = d >= alignBits ? 0 : ((long) f[i].significand() << (alignBits - 1 - m)) >>> d;
            ints[i] = (int) (f[i].negative() ? -mag : mag);
        }
        return new Aligned(ints, ebmax, special);
    }
}
