package org.llmnpu.numerics.mx;

import org.llmnpu.numerics.fp.Rounding;
import org.llmnpu.numerics.fp16.Fp16;

/**
 * OCP MX v1.0 block quantization (spec section 6.3), bit exact:
 * <ol>
 *   <li>{@code amax = max |v_i|}; if it is 0 the scale exponent is −127 (code 0) and every element
 *       encodes its own signed zero;</li>
 *   <li>shared exponent {@code E = floor(log2(amax)) − emax(type)}, clamped to [−127, 127];
 *       scale code {@code E + 127};</li>
 *   <li>element {@code i = type.encode(v_i · 2^-E, rounding)}: one rounding (RNE by default,
 *       round-half-away as an option), saturating to ±max normal. The division by 2^E is exact.</li>
 * </ol>
 * Because E is taken from the exponent of amax, the largest element lands in [2^emax, 2^(emax+1))
 * and may saturate: e.g. FP4 E2M1 with amax = 7 gives E = 2 − 2 = 0 and the element 7 saturates
 * to 6 (that clipping is part of the spec's definition).
 *
 * <p>Special inputs (a choice the spec leaves to implementations; ours): any NaN or ±infinity in
 * the block makes the scale NaN (0xFF) and all element codes 0, so the whole block decodes to NaN.
 */
public final class MxQuantizer {
    private MxQuantizer() {
    }

    /** Quantizes FP32 (or any finite double) values with round-to-nearest-even. */
    public static MxBlock quantize(MxElementType type, double[] values) {
        return quantize(type, values, Rounding.NEAREST_EVEN);
    }

    /** Quantizes values with the given element rounding. */
    public static MxBlock quantize(MxElementType type, double[] values, Rounding rounding) {
        if (values == null || values.length < 1 || values.length > MxBlock.MAX_SIZE) {
            throw new IllegalArgumentException("values must hold 1.." + MxBlock.MAX_SIZE + " elements");
        }
        int[] codes = new int[values.length];
        double amax = 0;
        for (double v : values) {
            if (!Double.isFinite(v)) {
                return new MxBlock(type, E8M0.NaN, codes);
            }
            amax = Math.max(amax, Math.abs(v));
        }
        int exponent = amax == 0 ? E8M0.MIN_EXPONENT : sharedExponent(amax, type);
        int scaleCode = E8M0.encodeClamped(exponent);
        int e = scaleCode - E8M0.BIAS;
        for (int i = 0; i < values.length; i++) {
            codes[i] = type.encode(Math.scalb(values[i], -e), rounding);
        }
        return new MxBlock(type, scaleCode, codes);
    }

    /** Quantizes FP32 values (each widened exactly to double). */
    public static MxBlock quantize(MxElementType type, float[] values, Rounding rounding) {
        double[] d = new double[values.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = values[i];
        }
        return quantize(type, d, rounding);
    }

    /** Quantizes FP16 bit patterns (each decoded exactly). */
    public static MxBlock quantizeFp16(MxElementType type, short[] values, Rounding rounding) {
        double[] d = new double[values.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = Fp16.toDouble(values[i]);
        }
        return quantize(type, d, rounding);
    }

    /** {@code floor(log2(amax)) − emax(type)} for a finite amax &gt; 0, before clamping. */
    public static int sharedExponent(double amax, MxElementType type) {
        return floorLog2(amax) - type.emax();
    }

    /** floor(log2 x) for finite x &gt; 0, exact also for binary64 subnormals. */
    public static int floorLog2(double x) {
        if (!(x > 0) || Double.isInfinite(x)) {
            throw new IllegalArgumentException("x must be finite and > 0, got " + x);
        }
        int e = Math.getExponent(x);
        if (e >= Double.MIN_EXPONENT) {
            return e;
        }
        long mantissa = Double.doubleToRawLongBits(x) & ((1L << 52) - 1);
        return -1074 + 63 - Long.numberOfLeadingZeros(mantissa);
    }
}
