package org.llmnpu.sw.train;

import org.llmnpu.sw.model.ModelConfig;

/**
 * Forward and backward pass of the whole LLaMA decoder over one token sequence, in double precision: embedding
 * lookup, per block RMSNorm → Q/K/V → RoPE → GQA attention (causal, or any prefix mask such as diffusion's
 * block-causal one) → W_o → residual → RMSNorm → SwiGLU FFN →
 * residual, final RMSNorm and LM head ({@link #logits} equals the float reference
 * {@link org.llmnpu.sw.model.Transformer} to float rounding). The forward keeps every activation the backward
 * reads ({@link LayerCache}); {@link #lossAndGradients} adds the gradient of a {@link TrainingLoss} into a
 * {@link TrainableWeights} of the same shapes.
 *
 * <p>Cost per sequence of T tokens: about three times the forward's {@code 2·T·(params)} FLOPs plus
 * {@code 6·T²·dim} for attention. With {@code projectionsOnly} the embedding, norm and LM-head gradients are not
 * accumulated (the LM head's input gradient still is).
 */
public final class ModelBackprop {

    /** What layer l's backward reads. */
    private record LayerCache(double[][] input, RmsNormBackprop.Result attnNorm, double[][] q, double[][] k, double[][] v,
                              AttentionBackprop.Result attention, double[][] afterAttention, RmsNormBackprop.Result ffnNorm,
                              double[][] gate, double[][] up, double[][] hidden) {
    }

    private record Forward(LayerCache[] layers, double[][] last, RmsNormBackprop.Result finalNorm, double[][] logits) {
    }

    private ModelBackprop() {
    }

    /** A loss on one sequence's logits: returns its value and writes its gradient on the logits into {@code dLogits}. */
    @FunctionalInterface
    public interface LogitsLoss {
        double lossAndGradient(double[][] logits, double[][] dLogits);
    }

    /** The logits of every position of {@code tokens} ([T][vocab]). */
    public static double[][] logits(TrainableWeights w, int[] tokens) {
        return forward(w, tokens, AttentionBackprop.causalEnds(tokens.length)).logits;
    }

    /** The logits under a prefix attention mask: row t sees positions below {@code visibleEnd[t]}. */
    public static double[][] logits(TrainableWeights w, int[] tokens, int[] visibleEnd) {
        return forward(w, tokens, visibleEnd).logits;
    }

    /**
     * Runs {@code tokens} forward and back; returns this sequence's loss divided by {@code positions} (the batch's
     * predicted positions) and adds its gradients into {@code grads}.
     */
    public static double lossAndGradients(TrainableWeights w, int[] tokens, float[][] teacher, TrainingLoss loss,
                                          int positions, TrainableWeights grads, boolean projectionsOnly) {
        return lossAndGradients(w, tokens, AttentionBackprop.causalEnds(tokens.length),
                (logits, dLogits) -> loss.lossAndGradient(logits, tokens, teacher, positions, dLogits), grads, projectionsOnly);
    }

    /**
     * Runs {@code tokens} forward and back with row t attending to positions below {@code visibleEnd[t]}; returns
     * {@code loss}'s value and adds its gradients into {@code grads}.
     */
    public static double lossAndGradients(TrainableWeights w, int[] tokens, int[] visibleEnd, LogitsLoss loss,
                                          TrainableWeights grads, boolean projectionsOnly) {
        ModelConfig c = w.config;
        Forward f = forward(w, tokens, visibleEnd);
        int seq = tokens.length;
        double[][] dLogits = new double[seq][c.vocabSize()];
        double value = loss.lossAndGradient(f.logits, dLogits);
        double[][] dNormed = new double[seq][c.dim()];
        Linear.accumulateInputGradient(dLogits, w.lmHead, dNormed);
        Linear.accumulateWeightGradient(dLogits, f.finalNorm.y(), projectionsOnly ? null : grads.lmHead);
        double[][] dx = new double[seq][c.dim()];
        RmsNormBackprop.backward(dNormed, f.last, w.finalNorm, f.finalNorm.inverseRms(), dx, projectionsOnly ? null : grads.finalNorm);
        for (int l = c.layers() - 1; l >= 0; l--) {
            dx = layerBackward(c, w, l, f.layers[l], dx, grads, projectionsOnly);
        }
        if (!projectionsOnly) {
            for (int t = 0; t < seq; t++) {
                double[] row = grads.embedding[tokens[t]];
                for (int i = 0; i < row.length; i++) {
                    row[i] += dx[t][i];
                }
            }
        }
        return value;
    }

    private static Forward forward(TrainableWeights w, int[] tokens, int[] visibleEnd) {
        ModelConfig c = w.config;
        double[][] x = new double[tokens.length][];
        for (int t = 0; t < tokens.length; t++) {
            if (tokens[t] < 0 || tokens[t] >= c.vocabSize()) {
                throw new IllegalArgumentException("token " + tokens[t] + " is outside the vocabulary 0.." + (c.vocabSize() - 1));
            }
            x[t] = w.embedding[tokens[t]].clone();
        }
        LayerCache[] caches = new LayerCache[c.layers()];
        for (int l = 0; l < c.layers(); l++) {
            caches[l] = layerForward(c, w, l, x, visibleEnd);
            x = residual(caches[l].afterAttention, Linear.forward(caches[l].hidden, w.projections[l][5]));
        }
        RmsNormBackprop.Result fn = RmsNormBackprop.forward(x, w.finalNorm, c.normEps());
        return new Forward(caches, x, fn, Linear.forward(fn.y(), w.lmHead));
    }

    private static LayerCache layerForward(ModelConfig c, TrainableWeights w, int l, double[][] x, int[] visibleEnd) {
        double[][][] p = w.projections[l];
        RmsNormBackprop.Result n1 = RmsNormBackprop.forward(x, w.attnNorm[l], c.normEps());
        double[][] q = Linear.forward(n1.y(), p[0]);
        double[][] k = Linear.forward(n1.y(), p[1]);
        double[][] v = Linear.forward(n1.y(), p[2]);
        AttentionBackprop.rotate(q, c.headDim(), c.ropeTheta(), 1);
        AttentionBackprop.rotate(k, c.headDim(), c.ropeTheta(), 1);
        AttentionBackprop.Result att = AttentionBackprop.forward(c, q, k, v, visibleEnd);
        double[][] afterAttention = residual(x, Linear.forward(att.out(), p[3]));
        RmsNormBackprop.Result n2 = RmsNormBackprop.forward(afterAttention, w.ffnNorm[l], c.normEps());
        double[][] gate = Linear.forward(n2.y(), p[4]);
        double[][] up = Linear.forward(n2.y(), p[6]);
        return new LayerCache(x, n1, q, k, v, att, afterAttention, n2, gate, up, SwiGluBackprop.forward(gate, up));
    }

    /** Given the gradient of the block's output, adds the block's weight gradients and returns its input gradient. */
    private static double[][] layerBackward(ModelConfig c, TrainableWeights w, int l, LayerCache f, double[][] dOut,
                                            TrainableWeights grads, boolean projectionsOnly) {
        double[][][] p = w.projections[l];
        double[][][] g = grads.projections[l];
        int seq = dOut.length;
        // FFN: out = afterAttention + W2 · (silu(W1 n2) ⊙ W3 n2)
        double[][] dHidden = new double[seq][c.hiddenDim()];
        Linear.accumulateInputGradient(dOut, p[5], dHidden);
        Linear.accumulateWeightGradient(dOut, f.hidden, g[5]);
        double[][] dGate = new double[seq][c.hiddenDim()];
        double[][] dUp = new double[seq][c.hiddenDim()];
        SwiGluBackprop.backward(dHidden, f.gate, f.up, dGate, dUp);
        double[][] dN2 = new double[seq][c.dim()];
        Linear.accumulateInputGradient(dGate, p[4], dN2);
        Linear.accumulateInputGradient(dUp, p[6], dN2);
        Linear.accumulateWeightGradient(dGate, f.ffnNorm.y(), g[4]);
        Linear.accumulateWeightGradient(dUp, f.ffnNorm.y(), g[6]);
        double[][] dAfterAttention = copy(dOut);
        RmsNormBackprop.backward(dN2, f.afterAttention, w.ffnNorm[l], f.ffnNorm.inverseRms(), dAfterAttention,
                projectionsOnly ? null : grads.ffnNorm[l]);
        // attention: afterAttention = input + Wo · attend(rope(Wq n1), rope(Wk n1), Wv n1)
        double[][] dAttention = new double[seq][c.dim()];
        Linear.accumulateInputGradient(dAfterAttention, p[3], dAttention);
        Linear.accumulateWeightGradient(dAfterAttention, f.attention.out(), g[3]);
        AttentionBackprop.Gradients ag = AttentionBackprop.backward(c, dAttention, f.q, f.k, f.v, f.attention.probs());
        AttentionBackprop.rotate(ag.dq(), c.headDim(), c.ropeTheta(), -1);
        AttentionBackprop.rotate(ag.dk(), c.headDim(), c.ropeTheta(), -1);
        double[][] dN1 = new double[seq][c.dim()];
        double[][] n1 = f.attnNorm.y();
        Linear.accumulateInputGradient(ag.dq(), p[0], dN1);
        Linear.accumulateInputGradient(ag.dk(), p[1], dN1);
        Linear.accumulateInputGradient(ag.dv(), p[2], dN1);
        Linear.accumulateWeightGradient(ag.dq(), n1, g[0]);
        Linear.accumulateWeightGradient(ag.dk(), n1, g[1]);
        Linear.accumulateWeightGradient(ag.dv(), n1, g[2]);
        double[][] dInput = dAfterAttention;
        RmsNormBackprop.backward(dN1, f.input, w.attnNorm[l], f.attnNorm.inverseRms(), dInput,
                projectionsOnly ? null : grads.attnNorm[l]);
        return dInput;
    }

    private static double[][] residual(double[][] x, double[][] delta) {
        double[][] out = new double[x.length][];
        for (int t = 0; t < x.length; t++) {
            out[t] = x[t].clone();
            for (int i = 0; i < out[t].length; i++) {
                out[t][i] += delta[t][i];
            }
        }
        return out;
    }

    private static double[][] copy(double[][] m) {
        double[][] out = new double[m.length][];
        for (int t = 0; t < m.length; t++) {
            out[t] = m[t].clone();
        }
        return out;
    }
}
