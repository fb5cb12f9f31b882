package org.llmnpu.sw.graph;

import org.llmnpu.sw.model.ModelConfig;

/**
 * Builds the operator graph of a LLaMA-style decoder for one {@link GraphShape}, as an NPU executes it:
 * GEMM inputs are INT8 activations, GEMMs accumulate in INT32 and are requantized; weights are stored at
 * the shape's weight type and dequantized to INT8 on load; the residual stream, RoPE'd Q/K and scores
 * are FP16; the KV cache is resident off-chip and each graph writes only its new tokens' K and V.
 * Tensors: {@code L<layer>.<name>}.
 */
public final class DecoderGraphBuilder {

    private final GraphShape s;
    private final ModelConfig c;
    private final Graph g = new Graph();

    private DecoderGraphBuilder(GraphShape shape) {
        this.s = shape;
        this.c = shape.model();
    }

    public static Graph build(GraphShape shape) {
        return new DecoderGraphBuilder(shape).build();
    }

    private Graph build() {
        long t = s.tokens();
        Tensor ids = resident("token_ids", DType.INT32, t);
        Tensor x = g.add("embed", OpKind.EMBED, tensor("x0", DType.FP16, t, c.dim()), ids,
                resident("embedding", DType.FP16, c.vocabSize(), c.dim()));
        for (int l = 0; l < c.layers(); l++) {
            x = layer("L" + l + ".", x);
        }
        Tensor xn = g.add("final_norm", OpKind.RMSNORM, tensor("final.xn", DType.INT8, t, c.dim()), x,
                resident("final.gain", DType.FP16, c.dim()));
        Tensor logits = new Tensor("logits", new long[] {t, c.vocabSize()}, DType.FP16, true);
        projection("lm_head", xn, c.vocabSize(), c.dim(), logits);
        return g;
    }

    private Tensor layer(String p, Tensor x) {
        long t = s.tokens();
        int d = c.headDim();
        Tensor xn = g.add(p + "attn_norm", OpKind.RMSNORM, tensor(p + "xn", DType.INT8, t, c.dim()), x,
                resident(p + "attn_gain", DType.FP16, c.dim()));
        Tensor q = projection(p + "wq", xn, c.dim(), c.dim(), tensor(p + "q", DType.FP16, t, c.dim()));
        Tensor k = projection(p + "wk", xn, c.kvDim(), c.dim(), tensor(p + "k", DType.FP16, t, c.kvDim()));
        Tensor v = projection(p + "wv", xn, c.kvDim(), c.dim(), tensor(p + "v", DType.FP16, t, c.kvDim()));
        Tensor qr = g.add(p + "rope_q", OpKind.ROPE, tensor(p + "q_rope", DType.FP16, t, c.dim()), q);
        Tensor kr = g.add(p + "rope_k", OpKind.ROPE, tensor(p + "k_rope", DType.FP16, t, c.kvDim()), k);
        Tensor kNew = g.add(p + "k_write", OpKind.KV_WRITE, new Tensor(p + "k_cache_new", new long[] {t, c.kvDim()}, s.kvType(), true), kr);
        Tensor vNew = g.add(p + "v_write", OpKind.KV_WRITE, new Tensor(p + "v_cache_new", new long[] {t, c.kvDim()}, s.kvType(), true), v);
        long past = s.kvLength() - t;
        Tensor[] qkInputs = past > 0
                ? new Tensor[] {qr, resident(p + "k_cache_past", s.kvType(), past, c.kvDim()), kNew}
                : new Tensor[] {qr, kNew};
        Tensor scores = g.add(p + "qk", OpKind.QK_MATMUL, tensor(p + "scores", DType.FP16, c.heads(), t, s.kvLength()), qkInputs);
        Tensor masked = g.add(p + "scale_mask", OpKind.SCALE_MASK, tensor(p + "masked", DType.FP16, c.heads(), t, s.kvLength()), scores);
        Tensor probs = g.add(p + "softmax", OpKind.SOFTMAX, tensor(p + "probs", DType.FP16, c.heads(), t, s.kvLength()), masked);
        Tensor[] pvInputs = past > 0
                ? new Tensor[] {probs, resident(p + "v_cache_past", s.kvType(), past, c.kvDim()), vNew}
                : new Tensor[] {probs, vNew};
        Tensor att = g.add(p + "pv", OpKind.PV_MATMUL, tensor(p + "att", DType.INT8, t, (long) c.heads() * d), pvInputs);
        Tensor o = projection(p + "wo", att, c.dim(), c.dim(), tensor(p + "o", DType.FP16, t, c.dim()));
        Tensor x1 = g.add(p + "attn_residual", OpKind.ADD, tensor(p + "x_attn", DType.FP16, t, c.dim()), x, o);
        Tensor xn2 = g.add(p + "ffn_norm", OpKind.RMSNORM, tensor(p + "xn2", DType.INT8, t, c.dim()), x1,
                resident(p + "ffn_gain", DType.FP16, c.dim()));
        Tensor gate = projection(p + "w1", xn2, c.hiddenDim(), c.dim(), tensor(p + "gate", DType.FP16, t, c.hiddenDim()));
        Tensor up = projection(p + "w3", xn2, c.hiddenDim(), c.dim(), tensor(p + "up", DType.FP16, t, c.hiddenDim()));
        Tensor act = g.add(p + "silu", OpKind.SILU, tensor(p + "gate_act", DType.FP16, t, c.hiddenDim()), gate);
        Tensor h = g.add(p + "gate_mul", OpKind.MUL, tensor(p + "h", DType.INT8, t, c.hiddenDim()), act, up);
        Tensor down = projection(p + "w2", h, c.dim(), c.hiddenDim(), tensor(p + "down", DType.FP16, t, c.dim()));
        return g.add(p + "ffn_residual", OpKind.ADD, tensor(p + "x_out", DType.FP16, t, c.dim()), x1, down);
    }

    /**
     * DEQUANT(weight) → GEMM(input, weight) in INT32 → REQUANT to {@code out}. An N:M weight is stored as
     * its kept values and their indices; the dequant (Load unit) expands it to zero-filled INT8.
     */
    private Tensor projection(String name, Tensor input, long outFeatures, long inFeatures, Tensor out) {
        Tensor w8 = tensor(name + ".int8", DType.INT8, outFeatures, inFeatures);
        if (s.sparsity().isPresent()) {
            var p = s.sparsity().get();
            long kept = inFeatures / p.m() * p.n();
            Tensor values = resident(name, s.weightType(), outFeatures, kept);
            Tensor indices = resident(name + ".indices", p.indexBits() == 2 ? DType.INT2 : DType.INT3, outFeatures, kept);
            g.add(name + ".dequant", OpKind.DEQUANT, w8, values, indices);
        } else {
            g.add(name + ".dequant", OpKind.DEQUANT, w8, resident(name, s.weightType(), outFeatures, inFeatures));
        }
        Tensor acc = g.add(name + ".gemm", OpKind.GEMM, tensor(name + ".acc", DType.INT32, s.tokens(), outFeatures), input, w8);
        return g.add(name + ".requant", OpKind.REQUANT, out, acc);
    }

    private static Tensor tensor(String name, DType type, long... shape) {
        return new Tensor(name, shape, type, false);
    }

    private static Tensor resident(String name, DType type, long... shape) {
        return new Tensor(name, shape, type, true);
    }
}
