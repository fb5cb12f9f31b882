package org.llmnpu.sw.train;

/**
 * RMSNorm over each position, {@code y_i = g_i · x_i · r} with {@code r = (mean_j x_j² + eps)^(-1/2)}
 * (as {@link org.llmnpu.sw.model.Ops#rmsNorm}), and its backward pass:
 * {@code dg_i += dy_i x_i r} and {@code dx_i = r·g_i·dy_i − r³·x_i·(Σ_j dy_j g_j x_j)/n}.
 */
public final class RmsNormBackprop {

    /** Normalized rows and the factor {@code r} of each position (kept for backward). */
    public record Result(double[][] y, double[] inverseRms) {
    }

    private RmsNormBackprop() {
    }

    public static Result forward(double[][] x, double[] gain, double eps) {
        double[][] y = new double[x.length][];
        double[] inv = new double[x.length];
        for (int t = 0; t < x.length; t++) {
            double ss = 0;
            for (double v : x[t]) {
                ss += v * v;
            }
            inv[t] = 1.0 / Math.sqrt(ss / x[t].length + eps);
            y[t] = new double[x[t].length];
            for (int i = 0; i < x[t].length; i++) {
                y[t][i] = x[t][i] * inv[t] * gain[i];
            }
        }
        return new Result(y, inv);
    }

    /**
     * Adds the input gradient into {@code dx} and, unless {@code dGain} is null (a frozen gain), the gain gradient
     * into {@code dGain}.
     */
    public static void backward(double[][] dy, double[][] x, double[] gain, double[] inverseRms, double[][] dx, double[] dGain) {
        for (int t = 0; t < x.length; t++) {
            double[] xt = x[t];
            double[] dyt = dy[t];
            double r = inverseRms[t];
            double dot = 0;
            for (int i = 0; i < xt.length; i++) {
                dot += dyt[i] * gain[i] * xt[i];
            }
            double c = r * r * r * dot / xt.length;
            for (int i = 0; i < xt.length; i++) {
                dx[t][i] += r * gain[i] * dyt[i] - c * xt[i];
                if (dGain != null) {
                    dGain[i] += dyt[i] * xt[i] * r;
                }
            }
        }
    }
}
