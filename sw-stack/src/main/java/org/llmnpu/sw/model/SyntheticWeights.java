package org.llmnpu.sw.model;

import java.util.Random;

/**
 * Seeded synthetic weights whose statistics resemble a trained LLM, so that quantization and
 * KV-eviction experiments mean something:
 * <ul>
 *   <li>heavy tails: every matrix entry is Student-t (4 degrees of freedom, unit variance);</li>
 *   <li>outlier channels: {@code max(1, dim/64)} residual channels carry a consistent offset and
 *       three times the spread of the others in every token embedding, so normalized activations
 *       have a few large channels;</li>
 *   <li>locality: all hidden states share a common direction {@code u}; each KV head maps it into the
 *       high-frequency RoPE pairs of both its queries and its keys with the same phase, so
 *       {@code q_m·k_n} is largest at {@code m = n} and decays with distance;</li>
 *   <li>attention sink: the BOS embedding carries a direction {@code s}; keys map {@code s}, and queries
 *       map {@code u}, into the lowest-frequency RoPE pair, so every query scores BOS highly;</li>
 *   <li>head diversity: the strengths of both structures vary per head;</li>
 *   <li>keys carry channel structure, values do not: {@code Wv} ignores the common direction and the
 *       outlier channels, so values have no per-channel offsets — KIVI's observation on trained models
 *       (key cache: fixed outlier channels; value cache: no channel pattern).</li>
 * </ul>
 * The LM head is orthogonal to {@code u}, {@code s} and the outlier channels, so no token wins merely by
 * those context-independent directions (otherwise one token would be predicted after everything).
 * Same seed, same weights.
 */
public final class SyntheticWeights {

    /** Token id of the beginning-of-sequence token (llama2.c convention). */
    public static final int BOS = 1;

    private static final double RESIDUAL_SCALE = 0.6;
    private static final double LOGIT_SCALE = 3.0;
    /** Consistent magnitude of the outlier channels in every embedding (ordinary channels have RMS ≈ 1.2). */
    private static final double OUTLIER_OFFSET = 8.0;
    /** Share of a normalized hidden state along the common direction (embedding construction). */
    private static final double COMMON_SHARE = 0.65;
    private static final double LOCAL_LOGIT_MIN = 4.0;
    private static final double LOCAL_LOGIT_MAX = 10.0;
    private static final double SINK_LOGIT_MIN = 4.0;
    private static final double SINK_LOGIT_MAX = 10.0;

    private final ModelConfig c;
    private final Random rnd;
    private final float[] common;
    private final float[] sink;
    private final int[] outlierChannels;

    private SyntheticWeights(ModelConfig c, long seed) {
        this.c = c;
        this.rnd = new Random(seed);
        this.common = unitVector(null);
        this.sink = unitVector(common);
        this.outlierChannels = new int[Math.max(1, c.dim() / 64)];
        for (int i = 0; i < outlierChannels.length; i++) {
            outlierChannels[i] = rnd.nextInt(c.dim());
        }
    }

    public static ModelWeights generate(ModelConfig config, long seed) {
        return new SyntheticWeights(config, seed).build();
    }

    private ModelWeights build() {
        int dim = c.dim();
        float[][] embedding = embeddings();
        LayerWeights[] layers = new LayerWeights[c.layers()];
        for (int l = 0; l < layers.length; l++) {
            layers[l] = layer();
        }
        float[][] head = heavyMatrix(c.vocabSize(), dim, LOGIT_SCALE / Math.sqrt(dim));
        for (float[] row : head) {
            projectOut(row, common);
            projectOut(row, sink);
            for (int ch : outlierChannels) {
                row[ch] = 0f;
            }
        }
        ModelWeights provisional = new ModelWeights(c, embedding, layers, gains(dim), head);
        float[] bias = meanFinalHidden(provisional);
        for (float[] row : head) {
            projectOut(row, bias);
        }
        return provisional;
    }

    /**
     * Unit direction of the mean normalized final hidden state over a short synthetic sequence: the
     * context-independent part every position shares (e.g. the FFN's response to {@code u}). Removing it
     * from the LM head keeps one token from being predicted everywhere.
     */
    private float[] meanFinalHidden(ModelWeights m) {
        int n = Math.min(48, c.maxSeqLen());
        Transformer t = new Transformer(m);
        DenseKvCache kv = t.newCache(n);
        float[] mean = new float[c.dim()];
        Random tokens = new Random(rnd.nextLong());
        for (int pos = 0; pos < n; pos++) {
            float[] x = BlockKernels.embed(m, pos == 0 ? BOS : 2 + tokens.nextInt(c.vocabSize() - 2));
            float[] attention = new float[c.dim()];
            for (int l = 0; l < c.layers(); l++) {
                BlockKernels.Qkv qkv = BlockKernels.attentionInputs(c, m.layers()[l], x, pos);
                kv.write(l, pos, qkv.k(), qkv.v());
                kv.attend(l, qkv.q(), pos, attention);
                BlockKernels.finishBlock(c, m.layers()[l], x, attention);
            }
            float[] xn = Ops.rmsNorm(x, m.finalNorm(), c.normEps());
            for (int i = 0; i < xn.length; i++) {
                mean[i] += xn[i] / n;
            }
        }
        double norm = 0;
        for (float v : mean) {
            norm += v * v;
        }
        for (int i = 0; i < mean.length; i++) {
            mean[i] /= (float) Math.max(1e-12, Math.sqrt(norm));
        }
        return mean;
    }

    private float[][] embeddings() {
        int dim = c.dim();
        double rootDim = Math.sqrt(dim);
        float[][] e = new float[c.vocabSize()][dim];
        for (int t = 0; t < e.length; t++) {
            for (int i = 0; i < dim; i++) {
                e[t][i] = (float) (0.7 * heavy() + common[i] * rootDim);
            }
            for (int k = 0; k < outlierChannels.length; k++) {
                double sign = k % 2 == 0 ? 1 : -1;
                e[t][outlierChannels[k]] = (float) (2.0 * e[t][outlierChannels[k]] + sign * OUTLIER_OFFSET);
            }
        }
        for (int i = 0; i < dim; i++) {
            e[BOS][i] = (float) (0.3 * heavy() + 4.0 * sink[i] * rootDim);
        }
        return e;
    }

    private LayerWeights layer() {
        int dim = c.dim();
        int d = c.headDim();
        double rootDim = Math.sqrt(dim);
        float[][] wq = heavyMatrix(dim, dim, 1.0 / rootDim);
        float[][] wk = heavyMatrix(c.kvDim(), dim, 1.0 / rootDim);
        double rootHead = Math.sqrt(Math.sqrt(d));
        for (int kvh = 0; kvh < c.kvHeads(); kvh++) {
            // Target extra logit (before RoPE decay) of the nearest keys and of BOS, varied per head.
            double localLogit = LOCAL_LOGIT_MIN + rnd.nextDouble() * (LOCAL_LOGIT_MAX - LOCAL_LOGIT_MIN);
            double sinkLogit = SINK_LOGIT_MIN + rnd.nextDouble() * (SINK_LOGIT_MAX - SINK_LOGIT_MIN);
            int localPairs = Math.max(1, d / 8);
            int firstLocalPair = d / 16;
            double localAmplitude = Math.sqrt(localLogit * rootHead * rootHead / localPairs) / COMMON_SHARE;
            for (int pair = firstLocalPair; pair < firstLocalPair + localPairs; pair++) {
                double phase = rnd.nextDouble() * 2 * Math.PI;
                addRankOne(wk, kvh * d + 2 * pair, phase, localAmplitude, common);
                for (int h = kvh * c.groupSize(); h < (kvh + 1) * c.groupSize(); h++) {
                    addRankOne(wq, h * d + 2 * pair, phase, localAmplitude, common);
                }
            }
            double sinkAmplitude = Math.sqrt(sinkLogit * rootHead * rootHead / COMMON_SHARE);
            double phase = rnd.nextDouble() * 2 * Math.PI;
            int lowestFrequencyPair = d / 2 - 1;
            addRankOne(wk, kvh * d + 2 * lowestFrequencyPair, phase, sinkAmplitude, sink);
            for (int h = kvh * c.groupSize(); h < (kvh + 1) * c.groupSize(); h++) {
                addRankOne(wq, h * d + 2 * lowestFrequencyPair, phase, sinkAmplitude, common);
            }
        }
        float[][] wv = heavyMatrix(c.kvDim(), dim, 1.0 / rootDim);
        for (float[] row : wv) {
            projectOut(row, common);
            for (int ch : outlierChannels) {
                row[ch] = 0f;
            }
        }
        float[][] wo = heavyMatrix(dim, dim, RESIDUAL_SCALE / rootDim);
        float[][] w1 = heavyMatrix(c.hiddenDim(), dim, 1.0 / rootDim);
        float[][] w3 = heavyMatrix(c.hiddenDim(), dim, 1.0 / rootDim);
        float[][] w2 = heavyMatrix(dim, c.hiddenDim(), RESIDUAL_SCALE / Math.sqrt(c.hiddenDim()));
        return new LayerWeights(gains(dim), wq, wk, wv, wo, gains(dim), w1, w2, w3);
    }

    /** Rows (row, row+1) += amplitude * (cos phase, sin phase) ⊗ direction / sqrt(dim). */
    private void addRankOne(float[][] w, int row, double phase, double amplitude, float[] direction) {
        double scale = amplitude / Math.sqrt(c.dim());
        for (int i = 0; i < direction.length; i++) {
            w[row][i] += (float) (scale * Math.cos(phase) * direction[i]);
            w[row + 1][i] += (float) (scale * Math.sin(phase) * direction[i]);
        }
    }

    private float[] gains(int n) {
        float[] g = new float[n];
        for (int i = 0; i < n; i++) {
            g[i] = (float) (1.0 + 0.05 * rnd.nextGaussian());
        }
        return g;
    }

    private float[][] heavyMatrix(int rows, int cols, double scale) {
        float[][] m = new float[rows][cols];
        for (float[] row : m) {
            for (int i = 0; i < cols; i++) {
                row[i] = (float) (scale * heavy());
            }
        }
        return m;
    }

    /** Student-t with 4 degrees of freedom, scaled to unit variance. */
    private double heavy() {
        double chi2 = 0;
        for (int i = 0; i < 4; i++) {
            double g = rnd.nextGaussian();
            chi2 += g * g;
        }
        return rnd.nextGaussian() / Math.sqrt(chi2 / 4) / Math.sqrt(2.0);
    }

    private float[] unitVector(float[] orthogonalTo) {
        float[] v = new float[c.dim()];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) rnd.nextGaussian();
        }
        if (orthogonalTo != null) {
            projectOut(v, orthogonalTo);
        }
        double norm = 0;
        for (float x : v) {
            norm += x * x;
        }
        for (int i = 0; i < v.length; i++) {
            v[i] /= (float) Math.sqrt(norm);
        }
        return v;
    }

    private static void projectOut(float[] v, float[] unit) {
        double dot = 0;
        for (int i = 0; i < v.length; i++) {
            dot += v[i] * unit[i];
        }
        for (int i = 0; i < v.length; i++) {
            v[i] -= (float) (dot * unit[i]);
        }
    }
}
