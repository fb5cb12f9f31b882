package org.llmnpu.sw.model;

/**
 * The FP32 primitive operations of the reference executor. Every reduction sums in index order
 * with float accumulators, so two executors that call these with the same inputs agree bit for bit.
 */
public final class Ops {

    private Ops() {
    }

    /** out[r] = sum_c w[r][c] * x[c]. */
    public static void matvec(float[][] w, float[] x, float[] out) {
        int cols = x.length;
        for (int r = 0; r < w.length; r++) {
            float[] row = w[r];
            float s = 0f;
            for (int c = 0; c < cols; c++) {
                s += row[c] * x[c];
            }
            out[r] = s;
        }
    }

    public static float[] matvec(float[][] w, float[] x) {
        float[] out = new float[w.length];
        matvec(w, x, out);
        return out;
    }

    /** RMSNorm: out = x / sqrt(mean(x^2) + eps) * gain. */
    public static float[] rmsNorm(float[] x, float[] gain, float eps) {
        float ss = 0f;
        for (float v : x) {
            ss += v * v;
        }
        float inv = (float) (1.0 / Math.sqrt(ss / x.length + eps));
        float[] out = new float[x.length];
        for (int i = 0; i < x.length; i++) {
            out[i] = x[i] * inv * gain[i];
        }
        return out;
    }

    /**
     * Rotary position embedding in the llama2.c convention: adjacent pairs (2i, 2i+1) of each head are
     * rotated by {@code pos * theta^(-2i/headDim)}.
     */
    public static void rope(float[] v, int pos, int headDim, float theta) {
        for (int i = 0; i < v.length; i += 2) {
            int inHead = i % headDim;
            double freq = 1.0 / Math.pow(theta, inHead / (double) headDim);
            double angle = pos * freq;
            float cos = (float) Math.cos(angle);
            float sin = (float) Math.sin(angle);
            float a = v[i];
            float b = v[i + 1];
            v[i] = a * cos - b * sin;
            v[i + 1] = a * sin + b * cos;
        }
    }

    /** In-place softmax over {@code x[0..n)}. */
    public static void softmax(float[] x, int n) {
        float max = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, x[i]);
        }
        float sum = 0f;
        for (int i = 0; i < n; i++) {
            x[i] = (float) Math.exp(x[i] - max);
            sum += x[i];
        }
        for (int i = 0; i < n; i++) {
            x[i] /= sum;
        }
    }

    public static float silu(float x) {
        return (float) (x / (1.0 + Math.exp(-x)));
    }

    public static int argmax(float[] x) {
        int best = 0;
        for (int i = 1; i < x.length; i++) {
            if (x[i] > x[best]) {
                best = i;
            }
        }
        return best;
    }
}
