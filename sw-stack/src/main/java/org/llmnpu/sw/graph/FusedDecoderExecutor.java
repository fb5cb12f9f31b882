package org.llmnpu.sw.graph;

import org.llmnpu.sw.model.BlockKernels;
import org.llmnpu.sw.model.DenseKvCache;
import org.llmnpu.sw.model.LayerWeights;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Ops;

/**
 * Executes the decoder the way the fused graph runs it: one GEMM over the concatenated Q/K/V weights
 * (rows H·d, H_kv·d, H_kv·d), one GEMM over the concatenated gate/up weights with SiLU and the gating
 * multiply applied to its output, and tiled attention with online SoftMax. Concatenated GEMMs compute
 * the same dot products as separate ones; online SoftMax reassociates the sums, so logits match the
 * unfused reference to within float rounding (see the tests for the bound).
 */
public final class FusedDecoderExecutor {

    private final ModelWeights weights;
    private final int attentionTile;
    private final float[][][] qkv;
    private final float[][][] gateUp;

    public FusedDecoderExecutor(ModelWeights weights, int attentionTile) {
        this.weights = weights;
        this.attentionTile = attentionTile;
        int layers = weights.config().layers();
        qkv = new float[layers][][];
        gateUp = new float[layers][][];
        for (int l = 0; l < layers; l++) {
            LayerWeights w = weights.layers()[l];
            qkv[l] = concatRows(w.wq(), w.wk(), w.wv());
            gateUp[l] = concatRows(w.w1(), w.w3());
        }
    }

    static float[][] concatRows(float[][]... parts) {
        int rows = 0;
        for (float[][] p : parts) {
            rows += p.length;
        }
        float[][] out = new float[rows][];
        int r = 0;
        for (float[][] p : parts) {
            for (float[] row : p) {
                out[r++] = row;
            }
        }
        return out;
    }

    /** Logits of the token at {@code pos}; K and V are appended to {@code cache}. */
    public float[] forward(int token, int pos, DenseKvCache cache) {
        ModelConfig c = weights.config();
        int d = c.headDim();
        float[] x = BlockKernels.embed(weights, token);
        for (int l = 0; l < c.layers(); l++) {
            LayerWeights w = weights.layers()[l];
            float[] xb = Ops.rmsNorm(x, w.attnNorm(), c.normEps());
            float[] fused = Ops.matvec(qkv[l], xb);
            float[] q = java.util.Arrays.copyOfRange(fused, 0, c.dim());
            float[] k = java.util.Arrays.copyOfRange(fused, c.dim(), c.dim() + c.kvDim());
            float[] v = java.util.Arrays.copyOfRange(fused, c.dim() + c.kvDim(), c.dim() + 2 * c.kvDim());
            Ops.rope(q, pos, d, c.ropeTheta());
            Ops.rope(k, pos, d, c.ropeTheta());
            cache.write(l, pos, k, v);
            float[] att = new float[c.dim()];
            float[][] keys = new float[pos + 1][];
            float[][] values = new float[pos + 1][];
            for (int t = 0; t <= pos; t++) {
                keys[t] = cache.key(l, t);
                values[t] = cache.value(l, t);
            }
            for (int h = 0; h < c.heads(); h++) {
                OnlineSoftmaxAttention.attendHead(q, h * d, keys, values, (h / c.groupSize()) * d, pos + 1, d, attentionTile, att, h * d);
            }
            float[] o = Ops.matvec(w.wo(), att);
            for (int i = 0; i < x.length; i++) {
                x[i] += o[i];
            }
            float[] xb2 = Ops.rmsNorm(x, w.ffnNorm(), c.normEps());
            float[] gu = Ops.matvec(gateUp[l], xb2);
            int hidden = c.hiddenDim();
            float[] h = new float[hidden];
            for (int i = 0; i < hidden; i++) {
                h[i] = Ops.silu(gu[i]) * gu[hidden + i];
            }
            float[] down = Ops.matvec(w.w2(), h);
            for (int i = 0; i < x.length; i++) {
                x[i] += down[i];
            }
        }
        return BlockKernels.logits(weights, x);
    }
}
