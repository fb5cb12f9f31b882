package org.llmnpu.numerics.vector;

import org.llmnpu.numerics.fp16.Fp16;

/**
 * Max-subtracted SoftMax over an FP16 vector, as the Vector DSP runs it:
 * <ol>
 *   <li>{@code m = Reduction.max(x)} (lane/tree order, NaN ignored);</li>
 *   <li>{@code e_i = Fp16Math.exp(Fp16.sub(x_i, m))} — every e_i ≤ 1;</li>
 *   <li>{@code s = Reduction.sum(e)} in FP32, then {@code r = Fp16Math.reciprocal(Fp16.fromFloat(s))};</li>
 *   <li>{@code y_i = Fp16.mul(e_i, r)}.</li>
 * </ol>
 * Any NaN input gives all-NaN outputs (via exp(NaN)); a +∞ input gives NaN (∞ − ∞).
 *
 * <p>Error bound vs the double-precision softmax of the same FP16 inputs: ≤ {@value #ULP_BOUND}
 * FP16 ULP per output (ULP at the reference's binade, subnormal ULP 2^-24 below 2^-14), held over
 * lengths 1..1024, 1..16 lanes, logit spreads up to 100, very large (±6·10^4) and very negative
 * logits. The dominant term is the rounding of {@code x_i − m} before exp: an absolute error of
 * half an ULP of the difference turns into a relative error of the output.
 */
public final class Softmax {
    /** Error bound in FP16 ULPs, held by the tests. */
    public static final double ULP_BOUND = 9.0;

    private Softmax() {
    }

    /** SoftMax of x (length ≥ 1) with the given lane count. */
    public static short[] softmax(short[] x, VectorConfig config) {
        if (x.length == 0) {
            throw new IllegalArgumentException("x must have at least one element");
        }
        short m = Reduction.max(x, config);
        short[] e = new short[x.length];
        for (int i = 0; i < x.length; i++) {
            e[i] = Fp16Math.exp(Fp16.sub(x[i], m));
        }
        short r = Fp16Math.reciprocal(Fp16.fromFloat(Reduction.sum(e, config)));
        short[] y = new short[x.length];
        for (int i = 0; i < x.length; i++) {
            y[i] = Fp16.mul(e[i], r);
        }
        return y;
    }
}
