package org.llmnpu.sw.io.hf;

/**
 * The two ways LLaMA checkpoints order the rows of wq and wk, and the permutation between them.
 *
 * <p><b>Interleaved</b> (llama2.c, Meta's original; what {@code Ops.rope} and the NPU lowering use): in each head
 * of width d, the pairs (2i, 2i+1) are rotated by {@code pos·θ^(−2i/d)}. <b>Rotate-half</b> (Hugging Face): the
 * pairs (i, i + d/2) are rotated by the same angle. Hugging Face's conversion stores row {@code 2i+s} of a head at
 * row {@code s·d/2 + i}; the functions here apply that permutation (to export) and its inverse (to load), so a model
 * read from safetensors runs the interleaved RoPE with the same result as rotate-half on the stored rows.
 */
public final class RopeLayout {

    private RopeLayout() {
    }

    /** Rows of a Hugging Face q/k projection ([heads·d][in], rotate-half order) in interleaved order. */
    public static float[][] rotateHalfToInterleaved(float[][] w, int heads, int headDim) {
        check(w, heads, headDim);
        float[][] out = new float[w.length][];
        for (int h = 0; h < heads; h++) {
            for (int i = 0; i < headDim / 2; i++) {
                for (int s = 0; s < 2; s++) {
                    out[h * headDim + 2 * i + s] = w[h * headDim + s * headDim / 2 + i];
                }
            }
        }
        return out;
    }

    /** The inverse: interleaved rows (llama2.c) in Hugging Face's rotate-half order. */
    public static float[][] interleavedToRotateHalf(float[][] w, int heads, int headDim) {
        check(w, heads, headDim);
        float[][] out = new float[w.length][];
        for (int h = 0; h < heads; h++) {
            for (int i = 0; i < headDim / 2; i++) {
                for (int s = 0; s < 2; s++) {
                    out[h * headDim + s * headDim / 2 + i] = w[h * headDim + 2 * i + s];
                }
            }
        }
        return out;
    }

    /**
     * Rotate-half RoPE in place, Hugging Face's convention: in each head, {@code (x_i, x_{i+d/2})} becomes
     * {@code (x_i cos − x_{i+d/2} sin, x_{i+d/2} cos + x_i sin)} with angle {@code pos·θ^(−2i/d)}.
     */
    public static void ropeRotateHalf(float[] v, int pos, int headDim, float theta) {
        int half = headDim / 2;
        for (int h = 0; h < v.length / headDim; h++) {
            for (int i = 0; i < half; i++) {
                double angle = pos / Math.pow(theta, 2.0 * i / headDim);
                float cos = (float) Math.cos(angle);
                float sin = (float) Math.sin(angle);
                int a = h * headDim + i;
                int b = a + half;
                float x = v[a];
                float y = v[b];
                v[a] = x * cos - y * sin;
                v[b] = y * cos + x * sin;
            }
        }
    }

    private static void check(float[][] w, int heads, int headDim) {
        if (headDim % 2 != 0 || w.length != heads * headDim) {
            throw new IllegalArgumentException("rows must be heads·headDim with an even headDim, got " + w.length + " rows for "
                    + heads + " heads of " + headDim);
        }
    }
}
