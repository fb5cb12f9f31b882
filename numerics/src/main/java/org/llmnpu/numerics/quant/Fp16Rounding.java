package org.llmnpu.numerics.quant;

/**
 * Rounds a float to the nearest IEEE binary16 value (round-half-to-even, overflow to ±infinity,
 * gradual underflow to subnormals), returned as a float. Used where the seed stores quantization
 * metadata (KV group scale and zero point) in FP16.
 */
public final class Fp16Rounding {

    private Fp16Rounding() {
    }

    public static float round(float x) {
        if (Float.isNaN(x) || Float.isInfinite(x) || x == 0f) {
            return x;
        }
        float a = Math.abs(x);
        if (a >= 65520f) {
            return Math.copySign(Float.POSITIVE_INFINITY, x);
        }
        // The spacing of binary16 values around a: 2^(e-10) for normals, 2^-24 for subnormals.
        int exp = Math.max(Math.getExponent(a), -14);
        double ulp = Math.scalb(1.0, exp - 10);
        double rounded = Math.rint(a / ulp) * ulp;
        return (float) Math.copySign(rounded, x);
    }
}
