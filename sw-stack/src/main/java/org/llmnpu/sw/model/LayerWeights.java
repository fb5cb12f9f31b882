package org.llmnpu.sw.model;

import java.util.function.UnaryOperator;

/**
 * Weights of one decoder block. Matrices are [out][in] (row-major, as llama2.c stores them):
 * {@code wq} [dim][dim], {@code wk}/{@code wv} [kvDim][dim], {@code wo} [dim][dim],
 * {@code w1} (gate) and {@code w3} (up) [hidden][dim], {@code w2} (down) [dim][hidden].
 */
public record LayerWeights(float[] attnNorm, float[][] wq, float[][] wk, float[][] wv, float[][] wo,
                           float[] ffnNorm, float[][] w1, float[][] w2, float[][] w3) {

    /** The seven projection matrices, in the order wq, wk, wv, wo, w1, w2, w3. */
    public float[][][] projections() {
        return new float[][][] {wq, wk, wv, wo, w1, w2, w3};
    }

    public static final String[] PROJECTION_NAMES = {"wq", "wk", "wv", "wo", "w1", "w2", "w3"};

    /** A copy with every projection matrix replaced by {@code f(matrix)}; norms are shared. */
    public LayerWeights mapProjections(UnaryOperator<float[][]> f) {
        return new LayerWeights(attnNorm, f.apply(wq), f.apply(wk), f.apply(wv), f.apply(wo),
                ffnNorm, f.apply(w1), f.apply(w2), f.apply(w3));
    }
}
