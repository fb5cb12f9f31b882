package org.llmnpu.sw.train;

/**
 * A projection {@code y_t = W x_t} over the positions of a sequence (W is [out][in], rows of x are positions),
 * and its backward pass: {@code dx_t = Wᵀ dy_t}, {@code dW += Σ_t dy_t x_tᵀ}. Double precision, sums in index order.
 */
public final class Linear {

    private Linear() {
    }

    public static double[][] forward(double[][] x, double[][] w) {
        double[][] y = new double[x.length][w.length];
        for (int t = 0; t < x.length; t++) {
            double[] xt = x[t];
            double[] yt = y[t];
            for (int o = 0; o < w.length; o++) {
                yt[o] = dot(w[o], xt);
            }
        }
        return y;
    }

    /** Dot product with four partial sums (independent add chains; the order is fixed, so results are deterministic). */
    static double dot(double[] a, double[] b) {
        double s0 = 0;
        double s1 = 0;
        double s2 = 0;
        double s3 = 0;
        int n = a.length;
        int i = 0;
        for (; i + 3 < n; i += 4) {
            s0 += a[i] * b[i];
            s1 += a[i + 1] * b[i + 1];
            s2 += a[i + 2] * b[i + 2];
            s3 += a[i + 3] * b[i + 3];
        }
        for (; i < n; i++) {
            s0 += a[i] * b[i];
        }
        return (s0 + s1) + (s2 + s3);
    }

    /** Adds {@code Σ_t dy_t x_tᵀ} into {@code dw}; skipped when {@code dw} is null (a frozen matrix). */
    public static void accumulateWeightGradient(double[][] dy, double[][] x, double[][] dw) {
        if (dw == null) {
            return;
        }
        for (int t = 0; t < dy.length; t++) {
            double[] dyt = dy[t];
            double[] xt = x[t];
            for (int o = 0; o < dw.length; o++) {
                double g = dyt[o];
                if (g == 0) {
                    continue;
                }
                double[] row = dw[o];
                for (int i = 0; i < xt.length; i++) {
                    row[i] += g * xt[i];
                }
            }
        }
    }

    /** Adds {@code Wᵀ dy_t} into {@code dx[t]} for every position. */
    public static void accumulateInputGradient(double[][] dy, double[][] w, double[][] dx) {
        for (int t = 0; t < dy.length; t++) {
            double[] dyt = dy[t];
            double[] dxt = dx[t];
            for (int o = 0; o < w.length; o++) {
                double g = dyt[o];
                if (g == 0) {
                    continue;
                }
                double[] row = w[o];
                for (int i = 0; i < dxt.length; i++) {
                    dxt[i] += g * row[i];
                }
            }
        }
    }
}
