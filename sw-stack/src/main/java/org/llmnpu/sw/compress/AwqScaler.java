package org.llmnpu.sw.compress;

import java.util.List;
import org.llmnpu.numerics.quant.QuantScheme;
import org.llmnpu.numerics.quant.WeightQuantizer;
import org.llmnpu.sw.model.LayerWeights;
import org.llmnpu.sw.model.ModelConfig;

/**
 * AWQ-style activation-aware scaling of one block before round-to-nearest quantization. For each set of
 * matrices sharing an input — (wq, wk, wv) after the attention RMSNorm, wo after attention, (w1, w3)
 * after the FFN RMSNorm, w2 after the gated product — input channel j gets a scale
 * {@code s_j = mean|x_j|^α} (normalized so that {@code max·min = 1}); the matrices are quantized as
 * {@code Q(W·diag(s))} and the inverse scale is folded into what produces their input, so the
 * block computes the same function in exact arithmetic:
 * the RMSNorm gains (divided by s) for (wq, wk, wv) and (w1, w3); the rows of wv for wo (attention
 * is linear in V; the scale is shared by the query heads of a GQA group, since they read one V row);
 * the rows of w3 for w2 (the gated product is linear in w3's output). Row scaling of wv and w3
 * changes their per-group scales in proportion, not their codes. α is searched on the grid
 * {@code 0, 0.1, …, 1} per set, minimizing the summed output error {@code tr(ΔW·XᵀX·ΔWᵀ)} on the
 * calibration inputs; α = 0 is plain min–max, so the search never does worse on them.
 */
public final class AwqScaler {

    /** Grid of exponents tried. */
    static final int GRID = 10;

    private AwqScaler() {
    }

    /**
     * Returns the block with folded FP32 weights (norm gains divided, matrices scaled) ready for
     * min–max quantization under {@code scheme}. {@code inputs} are [4][samples][width] as recorded by
     * {@link ModelCompressor}: attention input, wo input, FFN input, w2 input.
     */
    public static LayerWeights scale(ModelConfig c, LayerWeights w, float[][][] inputs, QuantScheme scheme) {
        double[] sQkv = search(List.<float[][]>of(w.wq(), w.wk(), w.wv()), inputs[0], scheme, null);
        double[] sO = search(List.<float[][]>of(w.wo()), inputs[1], scheme, c);
        double[] sFfn = search(List.<float[][]>of(w.w1(), w.w3()), inputs[2], scheme, null);
        double[] s2 = search(List.<float[][]>of(w.w2()), inputs[3], scheme, null);
        int hd = c.headDim();
        double[] sV = new double[c.kvDim()];
        for (int r = 0; r < sV.length; r++) {
            sV[r] = sO[(r / hd) * c.groupSize() * hd + r % hd];
        }
        return new LayerWeights(divide(w.attnNorm(), sQkv), columns(w.wq(), sQkv), columns(w.wk(), sQkv),
                rows(columns(w.wv(), sQkv), sV), columns(w.wo(), sO), divide(w.ffnNorm(), sFfn), columns(w.w1(), sFfn),
                columns(w.w2(), s2), rows(columns(w.w3(), sFfn), s2));
    }

    /** The best scale vector for matrices reading {@code x}; {@code gqa} ties channels of heads sharing a KV head. */
    static double[] search(List<float[][]> mats, float[][] x, QuantScheme scheme, ModelConfig gqa) {
        int k = x[0].length;
        double[] meanAbs = new double[k];
        for (float[] row : x) {
            for (int j = 0; j < k; j++) {
                meanAbs[j] += Math.abs(row[j]) / x.length;
            }
        }
        if (gqa != null) {
            int hd = gqa.headDim();
            int g = gqa.groupSize();
            double[] tied = new double[k];
            for (int j = 0; j < k; j++) {
                int head = j / hd;
                int first = head - head % g;
                for (int h = first; h < first + g; h++) {
                    tied[j] += meanAbs[h * hd + j % hd] / g;
                }
            }
            meanAbs = tied;
        }
        double[][] h = Hessian.of(x);
        double[] best = null;
        double bestErr = Double.POSITIVE_INFINITY;
        for (int a = 0; a <= GRID; a++) {
            double alpha = a / (double) GRID;
            double[] s = new double[k];
            double max = 0;
            double min = Double.POSITIVE_INFINITY;
            for (int j = 0; j < k; j++) {
                s[j] = Math.pow(Math.max(meanAbs[j], 1e-8), alpha);
                max = Math.max(max, s[j]);
                min = Math.min(min, s[j]);
            }
            double norm = Math.sqrt(max * min);
            for (int j = 0; j < k; j++) {
                s[j] /= norm;
            }
            double err = 0;
            for (float[][] w : mats) {
                err += error(w, s, h, scheme);
            }
            if (err < bestErr) {
                bestErr = err;
                best = s;
            }
        }
        return best;
    }

    /** {@code Σ_rows Δ·H·Δᵀ} with {@code Δ = W − Q(W·diag s)·diag(1/s)}. */
    private static double error(float[][] w, double[] s, double[][] h, QuantScheme scheme) {
        float[][] q = WeightQuantizer.quantize(columns(w, s), scheme).dequantize();
        int k = s.length;
        double err = 0;
        double[] d = new double[k];
        for (int r = 0; r < w.length; r++) {
            for (int j = 0; j < k; j++) {
                d[j] = w[r][j] - q[r][j] / s[j];
            }
            for (int i = 0; i < k; i++) {
                if (d[i] == 0) {
                    continue;
                }
                double acc = 0;
                double[] hi = h[i];
                for (int j = 0; j < k; j++) {
                    acc += hi[j] * d[j];
                }
                err += d[i] * acc;
            }
        }
        return err;
    }

    private static float[][] columns(float[][] w, double[] s) {
        float[][] out = new float[w.length][w[0].length];
        for (int r = 0; r < w.length; r++) {
            for (int j = 0; j < s.length; j++) {
                out[r][j] = (float) (w[r][j] * s[j]);
            }
        }
        return out;
    }

    private static float[][] rows(float[][] w, double[] s) {
        float[][] out = new float[w.length][];
        for (int r = 0; r < w.length; r++) {
            out[r] = new float[w[r].length];
            for (int j = 0; j < w[r].length; j++) {
                out[r][j] = (float) (w[r][j] / s[r]);
            }
        }
        return out;
    }

    private static float[] divide(float[] gain, double[] s) {
        float[] out = new float[gain.length];
        for (int j = 0; j < gain.length; j++) {
            out[j] = (float) (gain[j] / s[j]);
        }
        return out;
    }
}
