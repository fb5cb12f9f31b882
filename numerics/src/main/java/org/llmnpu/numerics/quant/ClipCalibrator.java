package org.llmnpu.numerics.quant;

/**
 * Calibrated weight quantization: for every output channel, picks the clip ratio from a grid
 * that minimizes the squared output error {@code sum_x (x·w - x·deq(q(w)))^2} over sample
 * activations {@code x}. The objective separates by output channel, so the per-row grid search
 * finds the best grid point for each row exactly. Ratio 1.0 (plain min–max) is always in the grid,
 * so calibration never does worse than round-to-nearest on the samples.
 */
public final class ClipCalibrator {

    /** Clip ratios tried, from no clipping down to half the range. */
    public static final float[] DEFAULT_GRID = {1.0f, 0.95f, 0.9f, 0.85f, 0.8f, 0.75f, 0.7f, 0.6f, 0.5f};

    private ClipCalibrator() {
    }

    /**
     * @param weights     [out][in]
     * @param activations sample inputs, [samples][in]
     */
    public static QuantizedMatrix calibrate(float[][] weights, float[][] activations, QuantScheme scheme) {
        return calibrate(weights, activations, scheme, DEFAULT_GRID);
    }

    public static QuantizedMatrix calibrate(float[][] weights, float[][] activations, QuantScheme scheme, float[] grid) {
        if (activations.length == 0) {
            throw new IllegalArgumentException("calibration needs at least one activation sample");
        }
        if (activations[0].length != weights[0].length) {
            throw new IllegalArgumentException("activation width " + activations[0].length
                    + " must equal the weight input dimension " + weights[0].length);
        }
        int rows = weights.length;
        float[] best = new float[rows];
        double[] bestErr = new double[rows];
        java.util.Arrays.fill(bestErr, Double.POSITIVE_INFINITY);
        for (float clip : grid) {
            float[] clips = new float[rows];
            java.util.Arrays.fill(clips, clip);
            QuantizedMatrix q = WeightQuantizer.quantize(weights, scheme, clips);
            for (int r = 0; r < rows; r++) {
                double err = outputError(weights[r], q, r, activations);
                if (err < bestErr[r]) {
                    bestErr[r] = err;
                    best[r] = clip;
                }
            }
        }
        return WeightQuantizer.quantize(weights, scheme, best);
    }

    /** Sum over samples of the squared difference between the exact and the quantized row output. */
    public static double outputError(float[] row, QuantizedMatrix q, int r, float[][] activations) {
        float[] deq = new float[row.length];
        for (int c = 0; c < row.length; c++) {
            deq[c] = q.dequantize(r, c);
        }
        double err = 0;
        for (float[] x : activations) {
            double exact = 0;
            double approx = 0;
            for (int c = 0; c < row.length; c++) {
                exact += (double) x[c] * row[c];
                approx += (double) x[c] * deq[c];
            }
            err += (exact - approx) * (exact - approx);
        }
        return err;
    }
}
