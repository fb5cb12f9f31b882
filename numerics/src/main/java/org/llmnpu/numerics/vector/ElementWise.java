package org.llmnpu.numerics.vector;

import org.llmnpu.numerics.fp16.Fp16;

/**
 * Residual add and rotary position embedding (RoPE) on FP16 vectors.
 *
 * <p><b>Residual add</b>: {@code y_i = Fp16.add(a_i, b_i)}, correctly rounded (≤ 0.5 ULP).
 *
 * <p><b>RoPE</b>, "rotate half" layout (LLaMA / GPT-NeoX): for a head of even dimension d and
 * i &lt; d/2, with {@code j = i + d/2}:
 * {@code y_i = x_i·cos_i − x_j·sin_i}, {@code y_j = x_j·cos_i + x_i·sin_i}. Each is a two-term dot
 * product on the DSP's FP32 path: both FP16 products are exact in FP32, one FP32 addition rounds,
 * and one conversion rounds to FP16. Bound ≤ {@value #ROPE_ULP_BOUND} ULP of the double reference
 * on the same FP16 x, cos, sin (the FP32 rounding adds at most 2^-13 ULP to the final 0.5 ULP,
 * except where the FP32 sum is exact, which is the cancellation case). {@link #ropeTables} gives
 * the FP16 cos/sin for a position: angle {@code pos · theta^(−2i/d)} in double, each rounded once.
 */
public final class ElementWise {
    /** RoPE error bound in FP16 ULPs. */
    public static final double ROPE_ULP_BOUND = 0.51;

    private ElementWise() {
    }

    /** Element-wise a + b. */
    public static short[] residualAdd(short[] a, short[] b) {
        if (a.length != b.length) {
            throw new IllegalArgumentException("b must have the length of a (" + a.length + "), got " + b.length);
        }
        short[] y = new short[a.length];
        for (int i = 0; i < a.length; i++) {
            y[i] = Fp16.add(a[i], b[i]);
        }
        return y;
    }

    /** RoPE of one head vector x (even length d) with cos/sin of length d/2. */
    public static short[] rope(short[] x, short[] cos, short[] sin) {
        int half = x.length / 2;
        if (x.length % 2 != 0 || x.length == 0) {
            throw new IllegalArgumentException("x must have an even non-zero length, got " + x.length);
        }
        if (cos.length != half || sin.length != half) {
            throw new IllegalArgumentException("cos and sin must have length d/2 = " + half + ", got " + cos.length + " and " + sin.length);
        }
        short[] y = new short[x.length];
        for (int i = 0; i < half; i++) {
            float xi = Fp16.toFloat(x[i]);
            float xj = Fp16.toFloat(x[i + half]);
            float c = Fp16.toFloat(cos[i]);
            float s = Fp16.toFloat(sin[i]);
            y[i] = Fp16.fromFloat(xi * c - xj * s);
            y[i + half] = Fp16.fromFloat(xj * c + xi * s);
        }
        return y;
    }

    /** FP16 cos and sin tables {@code [0] = cos, [1] = sin} for a position, head dimension d and base theta. */
    public static short[][] ropeTables(int position, int d, double theta) {
        if (d <= 0 || d % 2 != 0) {
            throw new IllegalArgumentException("d must be even and > 0, got " + d);
        }
        short[][] t = new short[2][d / 2];
        for (int i = 0; i < d / 2; i++) {
            double angle = position * StrictMath.pow(theta, -2.0 * i / d);
            t[0][i] = Fp16.fromDouble(StrictMath.cos(angle));
            t[1][i] = Fp16.fromDouble(StrictMath.sin(angle));
        }
        return t;
    }
}
