package org.llmnpu.numerics.vector;

import org.llmnpu.numerics.fp16.Fp16;

/**
 * Double-precision references of the Vector DSP kernels, on the same FP16 inputs widened
 * exactly, and the error metrics their ULP bounds are stated in. No rounding to FP16 anywhere:
 * these are what the FP16 kernels approximate.
 */
public final class KernelReference {
    private KernelReference() {
    }

    /** FP16 codes as doubles (exact). */
    public static double[] toDouble(short[] x) {
        double[] d = new double[x.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = Fp16.toDouble(x[i]);
        }
        return d;
    }

    /** Max-subtracted softmax. */
    public static double[] softmax(double[] x) {
        double m = Double.NEGATIVE_INFINITY;
        for (double v : x) {
            m = Math.max(m, v);
        }
        double s = 0;
        for (double v : x) {
            s += Math.exp(v - m);
        }
        double[] y = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            y[i] = Math.exp(x[i] - m) / s;
        }
        return y;
    }

    /** x_i / sqrt(mean(x²) + eps) · g_i. */
    public static double[] rmsNorm(double[] x, double[] g, double eps) {
        double ss = 0;
        for (double v : x) {
            ss += v * v;
        }
        double r = 1 / Math.sqrt(ss / x.length + eps);
        double[] y = new double[x.length];
        for (int i = 0; i < y.length; i++) {
            y[i] = x[i] * r * g[i];
        }
        return y;
    }

    /** (x_i − mean) / sqrt(var + eps) · g_i + b_i (population variance). */
    public static double[] layerNorm(double[] x, double[] g, double[] b, double eps) {
        double mean = 0;
        for (double v : x) {
            mean += v;
        }
        mean /= x.length;
        double var = 0;
        for (double v : x) {
            var += (v - mean) * (v - mean);
        }
        double r = 1 / Math.sqrt(var / x.length + eps);
        double[] y = new double[x.length];
        for (int i = 0; i < y.length; i++) {
            y[i] = (x[i] - mean) * r * g[i] + b[i];
        }
        return y;
    }

    /** x · sigmoid(x). */
    public static double silu(double x) {
        return x / (1 + Math.exp(-x));
    }

    /** RoPE ("rotate half") of x (even length d) with angle cosines/sines of length d/2. */
    public static double[] rope(double[] x, double[] cos, double[] sin) {
        int half = x.length / 2;
        double[] y = new double[x.length];
        for (int i = 0; i < half; i++) {
            y[i] = x[i] * cos[i] - x[i + half] * sin[i];
            y[i + half] = x[i + half] * cos[i] + x[i] * sin[i];
        }
        return y;
    }

    /** Largest {@link Fp16#ulpError} over the elements. */
    public static double maxUlp(short[] got, double[] reference) {
        double max = 0;
        for (int i = 0; i < got.length; i++) {
            max = Math.max(max, Fp16.ulpError(got[i], reference[i]));
        }
        return max;
    }

    /** Largest error in ULPs of max(|ref_i|, max_j |ref_j| / 16): the LayerNorm metric. */
    public static double maxUlpWithRowFloor(short[] got, double[] reference) {
        double rowMax = 0;
        for (double r : reference) {
            rowMax = Math.max(rowMax, Math.abs(r));
        }
        double floor = rowMax / 16;
        double max = 0;
        for (int i = 0; i < got.length; i++) {
            double magnitude = Math.max(Math.abs(reference[i]), floor);
            int e = magnitude == 0 ? -14 : Math.max(Math.getExponent(magnitude), -14);
            max = Math.max(max, Math.abs(Fp16.toDouble(got[i]) - reference[i]) / Math.scalb(1.0, e - 10));
        }
        return max;
    }
}
