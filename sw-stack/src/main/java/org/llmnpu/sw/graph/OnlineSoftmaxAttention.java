package org.llmnpu.sw.graph;

/**
 * Fused attention of one query head with the FlashAttention recurrence: keys and values are visited in
 * tiles of {@code tile} positions; per tile {@code s = q·kᵀ·scale}, {@code m' = max(m, max s)},
 * {@code p = exp(s − m')}, {@code α = exp(m − m')}, {@code l = l·α + Σp}, {@code acc = acc·α + p·V},
 * and finally {@code out = acc / l}. Only one tile of scores exists at a time. The result equals
 * softmax attention up to floating-point reassociation.
 */
public final class OnlineSoftmaxAttention {

    private OnlineSoftmaxAttention() {
    }

    public static void attendHead(float[] q, int qOffset, float[][] keys, float[][] values, int kvOffset, int n, int d,
                                  int tile, float[] out, int outOffset) {
        if (tile < 1) {
            throw new IllegalArgumentException("attention tile must be >= 1 position, got " + tile);
        }
        float scale = (float) (1.0 / Math.sqrt(d));
        float m = Float.NEGATIVE_INFINITY;
        float l = 0f;
        float[] acc = new float[d];
        float[] s = new float[tile];
        for (int from = 0; from < n; from += tile) {
            int len = Math.min(tile, n - from);
            float tileMax = Float.NEGATIVE_INFINITY;
            for (int j = 0; j < len; j++) {
                float[] k = keys[from + j];
                float dot = 0f;
                for (int i = 0; i < d; i++) {
                    dot += q[qOffset + i] * k[kvOffset + i];
                }
                s[j] = dot * scale;
                tileMax = Math.max(tileMax, s[j]);
            }
            float newMax = Math.max(m, tileMax);
            float alpha = (float) Math.exp(m - newMax);
            float rowSum = 0f;
            for (int j = 0; j < len; j++) {
                s[j] = (float) Math.exp(s[j] - newMax);
                rowSum += s[j];
            }
            l = l * alpha + rowSum;
            for (int i = 0; i < d; i++) {
                acc[i] *= alpha;
            }
            for (int j = 0; j < len; j++) {
                float[] v = values[from + j];
                for (int i = 0; i < d; i++) {
                    acc[i] += s[j] * v[kvOffset + i];
                }
            }
            m = newMax;
        }
        for (int i = 0; i < d; i++) {
            out[outOffset + i] = acc[i] / l;
        }
    }
}
