package org.llmnpu.sw.model;

/**
 * The vectors one decoder layer computes for the last token of a prompt, recorded from a real
 * forward pass (FP32), so that the Vector DSP can be driven with LLM activations and compared
 * with the software's own results. Every earlier token and layer runs unchanged through
 * {@link BlockKernels}; the recorded layer is replayed step by step with the same operations.
 *
 * @param pos position of the recorded token
 * @param residualIn the residual stream entering the layer (dim)
 * @param attnNormGain the attention RMSNorm gain (dim)
 * @param attnNormOut {@code Ops.rmsNorm(residualIn, attnNormGain, eps)}
 * @param queryHead0 query head 0 before RoPE (headDim), llama2.c adjacent-pair layout
 * @param queryHead0Rotated query head 0 after RoPE
 * @param scoresHead0 head 0's attention scores q·k/sqrt(d) over positions 0..pos (before softmax)
 * @param probabilitiesHead0 {@code Ops.softmax} of the scores
 * @param attentionProjection the attention output projection added to the residual (dim)
 * @param residualMid residualIn + attentionProjection
 * @param gate the FFN gate projection w1·x (hiddenDim)
 * @param up the FFN up projection w3·x (hiddenDim)
 * @param swiglu {@code silu(gate) · up}, as the software computes it
 */
public record LayerActivations(int pos, float[] residualIn, float[] attnNormGain, float[] attnNormOut,
                               float[] queryHead0, float[] queryHead0Rotated, float[] scoresHead0,
                               float[] probabilitiesHead0, float[] attentionProjection, float[] residualMid,
                               float[] gate, float[] up, float[] swiglu) {

    /** Runs {@code tokens} through the model and records layer {@code layer} at the last token. */
    public static LayerActivations capture(Transformer model, int[] tokens, int layer) {
        ModelConfig c = model.config();
        if (layer < 0 || layer >= c.layers()) {
            throw new IllegalArgumentException("layer must be in 0.." + (c.layers() - 1) + ", got " + layer);
        }
        if (tokens.length < 1 || tokens.length > c.maxSeqLen()) {
            throw new IllegalArgumentException("prompt length must be in 1.." + c.maxSeqLen() + ", got " + tokens.length);
        }
        DenseKvCache kv = model.newCache(tokens.length);
        int last = tokens.length - 1;
        model.forwardAll(java.util.Arrays.copyOf(tokens, last), kv);
        float[] x = BlockKernels.embed(model.weights(), tokens[last]);
        float[] attention = new float[c.dim()];
        for (int l = 0; l < layer; l++) {
            LayerWeights w = model.weights().layers()[l];
            BlockKernels.Qkv qkv = BlockKernels.attentionInputs(c, w, x, last);
            kv.write(l, last, qkv.k(), qkv.v());
            kv.attend(l, qkv.q(), last, attention);
            BlockKernels.finishBlock(c, w, x, attention);
        }
        LayerWeights w = model.weights().layers()[layer];
        float[] residualIn = x.clone();
        float[] xb = Ops.rmsNorm(x, w.attnNorm(), c.normEps());
        float[] q = Ops.matvec(w.wq(), xb);
        float[] head0 = java.util.Arrays.copyOf(q, c.headDim());
        BlockKernels.Qkv qkv = BlockKernels.attentionInputs(c, w, x, last);
        kv.write(layer, last, qkv.k(), qkv.v());
        float[] rotated = java.util.Arrays.copyOf(qkv.q(), c.headDim());
        float[] scores = new float[last + 1];
        float scale = (float) (1.0 / Math.sqrt(c.headDim()));
        for (int t = 0; t <= last; t++) {
            float[] k = kv.key(layer, t);
            float s = 0f;
            for (int i = 0; i < c.headDim(); i++) {
                s += rotated[i] * k[i];
            }
            scores[t] = s * scale;
        }
        float[] probabilities = scores.clone();
        Ops.softmax(probabilities, probabilities.length);
        kv.attend(layer, qkv.q(), last, attention);
        float[] projection = Ops.matvec(w.wo(), attention);
        float[] mid = new float[c.dim()];
        for (int i = 0; i < mid.length; i++) {
            mid[i] = x[i] + projection[i];
        }
        float[] xf = Ops.rmsNorm(mid, w.ffnNorm(), c.normEps());
        float[] gate = Ops.matvec(w.w1(), xf);
        float[] up = Ops.matvec(w.w3(), xf);
        float[] swiglu = new float[gate.length];
        for (int i = 0; i < gate.length; i++) {
            swiglu[i] = Ops.silu(gate[i]) * up[i];
        }
        return new LayerActivations(last, residualIn, w.attnNorm().clone(), xb, head0, rotated, scores, probabilities,
                projection, mid, gate, up, swiglu);
    }
}
