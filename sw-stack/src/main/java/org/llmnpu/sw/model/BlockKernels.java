package org.llmnpu.sw.model;

/**
 * The per-token computations of a decoder block that do not depend on how the KV cache is stored:
 * the attention inputs (RMSNorm, Q/K/V projections, RoPE) and everything after attention (output
 * projection, residual, RMSNorm, SwiGLU FFN, residual). The dynamic reference and the static-shape
 * runtime both call these, which is what makes their logits identical.
 */
public final class BlockKernels {

    /** Query, key and value of one token, after RoPE. */
    public record Qkv(float[] q, float[] k, float[] v) {
    }

    private BlockKernels() {
    }

    public static Qkv attentionInputs(ModelConfig c, LayerWeights w, float[] x, int pos) {
        float[] xb = Ops.rmsNorm(x, w.attnNorm(), c.normEps());
        float[] q = Ops.matvec(w.wq(), xb);
        float[] k = Ops.matvec(w.wk(), xb);
        float[] v = Ops.matvec(w.wv(), xb);
        Ops.rope(q, pos, c.headDim(), c.ropeTheta());
        Ops.rope(k, pos, c.headDim(), c.ropeTheta());
        return new Qkv(q, k, v);
    }

    /** Adds the attention output projection and the FFN to the residual {@code x} in place. */
    public static void finishBlock(ModelConfig c, LayerWeights w, float[] x, float[] attention) {
        float[] proj = Ops.matvec(w.wo(), attention);
        for (int i = 0; i < x.length; i++) {
            x[i] += proj[i];
        }
        float[] xb = Ops.rmsNorm(x, w.ffnNorm(), c.normEps());
        float[] gate = Ops.matvec(w.w1(), xb);
        float[] up = Ops.matvec(w.w3(), xb);
        for (int i = 0; i < gate.length; i++) {
            gate[i] = Ops.silu(gate[i]) * up[i];
        }
        float[] down = Ops.matvec(w.w2(), gate);
        for (int i = 0; i < x.length; i++) {
            x[i] += down[i];
        }
    }

    public static float[] embed(ModelWeights m, int token) {
        if (token < 0 || token >= m.config().vocabSize()) {
            throw new IllegalArgumentException("token " + token + " is outside the vocabulary 0.." + (m.config().vocabSize() - 1));
        }
        return m.tokenEmbedding()[token].clone();
    }

    public static float[] logits(ModelWeights m, float[] x) {
        float[] xn = Ops.rmsNorm(x, m.finalNorm(), m.config().normEps());
        return Ops.matvec(m.lmHead(), xn);
    }
}
