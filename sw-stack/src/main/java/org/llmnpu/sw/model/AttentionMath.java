package org.llmnpu.sw.model;

/**
 * Scaled dot-product attention of one query head over {@code n} keys and values given as row arrays:
 * {@code out = softmax(q·k_t / sqrt(d)) · V}. Sums run over keys in order, which the static-shape
 * runtime reproduces exactly.
 */
public final class AttentionMath {

    private AttentionMath() {
    }

    /**
     * @param q      query vector, head {@code qOffset .. qOffset + d}
     * @param keys   keys[t] holds the key of entry t; head starts at {@code kvOffset}
     * @param values same layout as keys
     * @param weights scratch of length >= n; receives the attention probabilities
     */
    public static void attendHead(float[] q, int qOffset, float[][] keys, float[][] values, int kvOffset, int n, int d,
                                  float[] weights, float[] out, int outOffset) {
        float scale = (float) (1.0 / Math.sqrt(d));
        for (int t = 0; t < n; t++) {
            float[] k = keys[t];
            float s = 0f;
            for (int i = 0; i < d; i++) {
                s += q[qOffset + i] * k[kvOffset + i];
            }
            weights[t] = s * scale;
        }
        Ops.softmax(weights, n);
        for (int i = 0; i < d; i++) {
            out[outOffset + i] = 0f;
        }
        for (int t = 0; t < n; t++) {
            float p = weights[t];
            float[] v = values[t];
            for (int i = 0; i < d; i++) {
                out[outOffset + i] += p * v[kvOffset + i];
            }
        }
    }

    /** All query heads of a GQA layer; head h reads KV head {@code h / groupSize}. */
    public static void attendAllHeads(ModelConfig c, float[] q, float[][] keys, float[][] values, int n, float[] out) {
        float[] weights = new float[Math.max(1, n)];
        int d = c.headDim();
        for (int h = 0; h < c.heads(); h++) {
            int kvh = h / c.groupSize();
            attendHead(q, h * d, keys, values, kvh * d, n, d, weights, out, h * d);
        }
    }
}
