package org.llmnpu.sw.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import java.util.function.DoubleSupplier;
import org.junit.jupiter.api.Test;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.SyntheticWeights;
import org.llmnpu.sw.model.Transformer;

/**
 * Every backward pass against central finite differences {@code (f(x+h) − f(x−h)) / 2h}, h = 1e-5, in double: the
 * analytic and numeric derivatives of a scalar (a random weighting of the block's output, or the training loss)
 * must agree to {@code 1e-6 + 1e-5·|numeric|} — finite-difference error at h = 1e-5 is ~1e-10 relative, so a wrong
 * term (a missing factor, a transposed index) fails by orders of magnitude.
 */
class BackpropGradientTest {
    private static final double H = 1e-5;

    @Test
    void rmsNormInputAndGainGradientsMatchFiniteDifferences() {
        Random r = new Random(1);
        double[][] x = random(r, 3, 7, 1.0);
        double[] gain = random(r, 1, 7, 1.0)[0];
        double[][] weight = random(r, 3, 7, 1.0);
        DoubleSupplier f = () -> dot(weight, RmsNormBackprop.forward(x, gain, 1e-5).y());
        RmsNormBackprop.Result res = RmsNormBackprop.forward(x, gain, 1e-5);
        double[][] dx = new double[3][7];
        double[] dGain = new double[7];
        RmsNormBackprop.backward(weight, x, gain, res.inverseRms(), dx, dGain);
        checkAll(f, x, dx);
        checkAll(f, new double[][] {gain}, new double[][] {dGain});
    }

    @Test
    void causalGroupedQueryAttentionWithRopeMatchesFiniteDifferences() {
        // 4 query heads over 2 KV heads, head dimension 4, 5 positions
        ModelConfig c = new ModelConfig(16, 8, 1, 4, 2, 11, 8);
        Random r = new Random(2);
        double[][] q = random(r, 5, c.dim(), 1.0);
        double[][] k = random(r, 5, c.kvDim(), 1.0);
        double[][] v = random(r, 5, c.kvDim(), 1.0);
        double[][] weight = random(r, 5, c.dim(), 1.0);
        DoubleSupplier f = () -> {
            double[][] rq = copy(q);
            double[][] rk = copy(k);
            AttentionBackprop.rotate(rq, c.headDim(), c.ropeTheta(), 1);
            AttentionBackprop.rotate(rk, c.headDim(), c.ropeTheta(), 1);
            return dot(weight, AttentionBackprop.forward(c, rq, rk, v).out());
        };
        double[][] rq = copy(q);
        double[][] rk = copy(k);
        AttentionBackprop.rotate(rq, c.headDim(), c.ropeTheta(), 1);
        AttentionBackprop.rotate(rk, c.headDim(), c.ropeTheta(), 1);
        AttentionBackprop.Result res = AttentionBackprop.forward(c, rq, rk, v);
        AttentionBackprop.Gradients g = AttentionBackprop.backward(c, weight, rq, rk, v, res.probs());
        AttentionBackprop.rotate(g.dq(), c.headDim(), c.ropeTheta(), -1);
        AttentionBackprop.rotate(g.dk(), c.headDim(), c.ropeTheta(), -1);
        checkAll(f, q, g.dq());
        checkAll(f, k, g.dk());
        checkAll(f, v, g.dv());
    }

    @Test
    void swiGluGradientsMatchFiniteDifferences() {
        Random r = new Random(3);
        double[][] gate = random(r, 4, 9, 3.0);
        double[][] up = random(r, 4, 9, 1.0);
        double[][] weight = random(r, 4, 9, 1.0);
        DoubleSupplier f = () -> dot(weight, SwiGluBackprop.forward(gate, up));
        double[][] dGate = new double[4][9];
        double[][] dUp = new double[4][9];
        SwiGluBackprop.backward(weight, gate, up, dGate, dUp);
        checkAll(f, gate, dGate);
        checkAll(f, up, dUp);
    }

    @Test
    void lmHeadAndBothLossesMatchFiniteDifferences() {
        Random r = new Random(4);
        double[][] x = random(r, 4, 6, 1.0);
        double[][] head = random(r, 13, 6, 1.0);
        int[] tokens = {1, 5, 12, 0};
        float[][] teacher = new float[4][13];
        for (float[] row : teacher) {
            for (int i = 0; i < row.length; i++) {
                row[i] = (float) (2 * r.nextGaussian());
            }
        }
        for (TrainingLoss loss : TrainingLoss.values()) {
            DoubleSupplier f = () -> loss.lossAndGradient(Linear.forward(x, head), tokens, teacher, 3, new double[4][13]);
            double[][] dLogits = new double[4][13];
            loss.lossAndGradient(Linear.forward(x, head), tokens, teacher, 3, dLogits);
            double[][] dx = new double[4][6];
            double[][] dHead = new double[13][6];
            Linear.accumulateInputGradient(dLogits, head, dx);
            Linear.accumulateWeightGradient(dLogits, x, dHead);
            checkAll(f, x, dx);
            checkAll(f, head, dHead);
        }
    }

    @Test
    void wholeModelGradientsMatchFiniteDifferencesWithGqaAndARaggedHiddenSize() {
        // dim 8, hidden 7 (ragged), 2 layers, 4 heads over 2 KV heads, separate LM head
        ModelConfig c = new ModelConfig(8, 7, 2, 4, 2, 11, 16);
        ModelWeights m = SyntheticWeights.generate(c, 5);
        ModelWeights untied = new ModelWeights(c, m.tokenEmbedding(), m.layers(), m.finalNorm(), copy(m.tokenEmbedding(), 0.5f));
        int[] tokens = {1, 4, 9, 4, 10, 2};
        float[][] teacher = new Transformer(SyntheticWeights.generate(c, 6)).forwardAll(tokens,
                new Transformer(SyntheticWeights.generate(c, 6)).newCache(tokens.length));
        for (TrainingLoss loss : TrainingLoss.values()) {
            TrainableWeights w = TrainableWeights.of(untied);
            TrainableWeights grads = w.zerosLike();
            ModelBackprop.lossAndGradients(w, tokens, teacher, loss, tokens.length - 1, grads, false);
            DoubleSupplier f = () -> ModelBackprop.lossAndGradients(w, tokens, teacher, loss, tokens.length - 1, w.zerosLike(), false);
            List<double[]> params = w.rows();
            List<double[]> g = grads.rows();
            int checked = 0;
            for (int i = 0; i < params.size(); i++) {
                checkAll(f, new double[][] {params.get(i)}, new double[][] {g.get(i)});
                checked += params.get(i).length;
            }
            assertEquals(w.rows().stream().mapToInt(a -> a.length).sum(), checked);
        }
    }

    @Test
    void tiedEmbeddingGradientSumsTheLookupAndTheLmHead() {
        ModelConfig c = new ModelConfig(8, 6, 1, 2, 1, 9, 8);
        ModelWeights tied = SyntheticWeights.generate(c, 7);
        ModelWeights shared = new ModelWeights(c, tied.tokenEmbedding(), tied.layers(), tied.finalNorm(), tied.tokenEmbedding());
        TrainableWeights w = TrainableWeights.of(shared);
        assertTrue(w.isTied());
        int[] tokens = {1, 3, 3, 8};
        TrainableWeights grads = w.zerosLike();
        ModelBackprop.lossAndGradients(w, tokens, null, TrainingLoss.CE, 3, grads, false);
        checkAll(() -> ModelBackprop.lossAndGradients(w, tokens, null, TrainingLoss.CE, 3, w.zerosLike(), false),
                w.embedding, grads.embedding);
    }

    @Test
    void theDoubleForwardEqualsTheFloatReferenceOnStories260K() throws Exception {
        ModelWeights m = ModelCatalog.load("stories260K", 1);
        int[] tokens = {1, 403, 407, 261, 378, 300, 29, 500};
        float[][] ref = new Transformer(m).forwardAll(tokens, new Transformer(m).newCache(tokens.length));
        double[][] got = ModelBackprop.logits(TrainableWeights.of(m), tokens);
        double max = 0;
        for (int t = 0; t < tokens.length; t++) {
            for (int i = 0; i < ref[t].length; i++) {
                max = Math.max(max, Math.abs(ref[t][i] - got[t][i]));
            }
        }
        assertTrue(max < 2e-4, "max |logit difference| " + max);
    }

    /** Checks every entry of every row of {@code params} (perturbed in place and restored). */
    static void checkAll(DoubleSupplier f, double[][] params, double[][] analytic) {
        for (int r = 0; r < params.length; r++) {
            for (int i = 0; i < params[r].length; i++) {
                double keep = params[r][i];
                params[r][i] = keep + H;
                double up = f.getAsDouble();
                params[r][i] = keep - H;
                double down = f.getAsDouble();
                params[r][i] = keep;
                double numeric = (up - down) / (2 * H);
                assertEquals(numeric, analytic[r][i], 1e-6 + 1e-5 * Math.abs(numeric), "entry [" + r + "][" + i + "]");
            }
        }
    }

    static double[][] random(Random r, int rows, int cols, double scale) {
        double[][] m = new double[rows][cols];
        for (double[] row : m) {
            for (int i = 0; i < cols; i++) {
                row[i] = scale * r.nextGaussian();
            }
        }
        return m;
    }

    private static double dot(double[][] a, double[][] b) {
        double s = 0;
        for (int t = 0; t < a.length; t++) {
            for (int i = 0; i < a[t].length; i++) {
                s += a[t][i] * b[t][i];
            }
        }
        return s;
    }

    private static double[][] copy(double[][] m) {
        double[][] out = new double[m.length][];
        for (int t = 0; t < m.length; t++) {
            out[t] = m[t].clone();
        }
        return out;
    }

    private static float[][] copy(float[][] m, float scale) {
        float[][] out = new float[m.length][m[0].length];
        for (int t = 0; t < m.length; t++) {
            for (int i = 0; i < m[t].length; i++) {
                out[t][i] = m[t][i] * scale;
            }
        }
        return out;
    }
}
