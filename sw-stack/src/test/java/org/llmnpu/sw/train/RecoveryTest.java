package org.llmnpu.sw.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.numerics.sparse.NmPattern;
import org.llmnpu.numerics.sparse.NmPruner;
import org.llmnpu.sw.compress.CompressionSpec;
import org.llmnpu.sw.compress.ModelCompressor;
import org.llmnpu.sw.compress.PruneMethod;
import org.llmnpu.sw.compress.QuantMethod;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.LayerWeights;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.SyntheticWeights;
import org.llmnpu.sw.model.Transformer;

/** Recovery fine-tuning: optimizer, LoRA gradients, masks, determinism and the content cache. */
class RecoveryTest {
    private static ModelWeights stories;
    private static int[][] calibration;

    @BeforeAll
    static void load() throws Exception {
        stories = ModelCatalog.load("stories260K", 1);
        calibration = SampledSequences.sample(new Transformer(stories), 2, 32, SampledSequences.CALIBRATION_SEED);
    }

    /** A few short steps: enough to move the weights, fast enough for a unit test. */
    static RecoveryOptions quick(RecoveryMethod method, int steps) {
        RecoveryOptions d = RecoveryOptions.defaults(method, steps, 3);
        return new RecoveryOptions(method, steps, 2e-3, 2, 24, TrainingLoss.DISTILL, 4, 8, d.loraTargets(), 0, 3, Optional.empty());
    }

    static ModelWeights pruned24(ModelWeights m) {
        return ModelCompressor.compress(m, CompressionSpec.parse("2:4", QuantMethod.MINMAX, PruneMethod.MAGNITUDE), calibration)
                .effectiveWeights();
    }

    @Test
    void adamWFirstStepIsTheLearningRateTimesTheGradientSignPlusDecoupledDecay() {
        double[] p = {1.0, -2.0, 0.0};
        AdamW opt = new AdamW(List.of(p), 0.1);
        opt.step(List.of(new double[] {0.5, -3.0, 0.0}), 0.01);
        // bias-corrected m̂/√v̂ = g/|g| on the first step; decay −lr·λ·p
        assertEquals(1.0 - 0.01 * (1 + 0.1 * 1.0), p[0], 1e-9);
        assertEquals(-2.0 - 0.01 * (-1 + 0.1 * -2.0), p[1], 1e-9);
        assertEquals(0.0, p[2]);
        assertThrows(IllegalArgumentException.class, () -> new AdamW(List.of(p), -1));
    }

    @Test
    void loraAdapterGradientsMatchFiniteDifferencesThroughTheMask() {
        ModelConfig c = new ModelConfig(8, 12, 1, 2, 1, 9, 8);
        ModelWeights m = SyntheticWeights.generate(c, 11);
        TrainableWeights base = TrainableWeights.of(ModelCompressor.compress(m,
                CompressionSpec.parse("2:4", QuantMethod.MINMAX, PruneMethod.MAGNITUDE), new int[][] {{1, 2}}).effectiveWeights());
        boolean[][][][] masks = Recovery.masks(base);
        LoraAdapters lora = new LoraAdapters(base, List.of("wq", "wo", "w2"), 2, 4, 5);
        Random r = new Random(6);
        for (double[] row : lora.rows()) {
            for (int i = 0; i < row.length; i++) {
                row[i] = 0.3 * r.nextGaussian(); // B non-zero so dA is tested too
            }
        }
        int[] tokens = {1, 5, 2, 7, 3};
        TrainableWeights eff = lora.effective(base, masks);
        TrainableWeights grads = eff.zerosLike();
        ModelBackprop.lossAndGradients(eff, tokens, null, TrainingLoss.CE, 4, grads, true);
        List<double[]> analytic = lora.gradients(grads, masks);
        List<double[]> params = lora.rows();
        for (int i = 0; i < params.size(); i++) {
            BackpropGradientTest.checkAll(() -> ModelBackprop.lossAndGradients(lora.effective(base, masks), tokens, null,
                    TrainingLoss.CE, 4, lora.effective(base, masks).zerosLike(), true),
                    new double[][] {params.get(i)}, new double[][] {analytic.get(i)});
        }
    }

    @Test
    void maskedFineTuningLowersTheLossAndPrunedWeightsStayZero() {
        ModelWeights pruned = pruned24(stories);
        TrainingSet data = TrainingSet.sampled(stories, 8, 24, 0);
        Recovery.Result r = Recovery.train(pruned, data, quick(RecoveryMethod.MASKED, 12));
        assertTrue(r.report().lastLoss() < 0.9 * r.report().firstLoss(), r.report().toString());
        boolean changed = false;
        for (int l = 0; l < pruned.layers().length; l++) {
            float[][][] before = pruned.layers()[l].projections();
            float[][][] after = r.weights().layers()[l].projections();
            for (int m = 0; m < before.length; m++) {
                assertTrue(NmPruner.satisfies(after[m], NmPattern.TWO_FOUR));
                for (int row = 0; row < before[m].length; row++) {
                    for (int col = 0; col < before[m][row].length; col++) {
                        if (before[m][row][col] == 0) {
                            assertEquals(0f, after[m][row][col]);
                        }
                        changed |= before[m][row][col] != after[m][row][col];
                    }
                }
            }
        }
        assertTrue(changed);
        // embedding, norms and head are frozen
        assertArrayEquals(pruned.finalNorm(), r.weights().finalNorm());
        assertArrayEquals(pruned.layers()[0].attnNorm(), r.weights().layers()[0].attnNorm());
    }

    @Test
    void loraTrainingIsDeterministicAndItsMergeKeepsThePattern() {
        ModelWeights pruned = pruned24(stories);
        TrainingSet data = TrainingSet.sampled(stories, 4, 24, 0);
        Recovery.Result a = Recovery.train(pruned, data, quick(RecoveryMethod.LORA, 6));
        Recovery.Result b = Recovery.train(pruned, data, quick(RecoveryMethod.LORA, 6));
        assertTrue(a.report().lastLoss() < a.report().firstLoss(), a.report().toString());
        for (int l = 0; l < pruned.layers().length; l++) {
            float[][][] x = a.weights().layers()[l].projections();
            float[][][] y = b.weights().layers()[l].projections();
            for (int m = 0; m < x.length; m++) {
                assertTrue(NmPruner.satisfies(x[m], NmPattern.TWO_FOUR), LayerWeights.PROJECTION_NAMES[m]);
                for (int row = 0; row < x[m].length; row++) {
                    assertArrayEquals(x[m][row], y[m][row]);
                }
            }
        }
    }

    @Test
    void aSecondRecoveryWithTheSameInputsComesFromTheCache(@TempDir Path dir) throws Exception {
        RecoveryCache cache = new RecoveryCache(dir);
        CompressionSpec spec = CompressionSpec.parse("int8+4:8", QuantMethod.MINMAX, PruneMethod.WANDA);
        RecoveryOptions o = quick(RecoveryMethod.MASKED, 3);
        RecoveredCompression.Result first = RecoveredCompression.compress(stories, spec, calibration, o, Optional.empty(), Optional.of(cache));
        assertFalse(first.report().cached());
        try (var files = Files.list(dir)) {
            assertEquals(1, files.filter(p -> p.toString().endsWith(".recovered")).count());
        }
        RecoveredCompression.Result second = RecoveredCompression.compress(stories, spec, calibration, o, Optional.empty(), Optional.of(cache));
        assertTrue(second.report().cached());
        assertEquals(first.report().seconds(), second.report().seconds());
        float[][] w1 = first.model().effectiveWeights().layers()[2].w2();
        float[][] w2 = second.model().effectiveWeights().layers()[2].w2();
        for (int r = 0; r < w1.length; r++) {
            assertArrayEquals(w1[r], w2[r]);
        }
        assertEquals(spec, second.model().spec());
        // other options are another entry
        RecoveredCompression.compress(stories, spec, calibration, o.withLearningRate(1e-3), Optional.empty(), Optional.of(cache));
        try (var files = Files.list(dir)) {
            assertEquals(2, files.filter(p -> p.toString().endsWith(".recovered")).count());
        }
    }

    @Test
    void badOptionsNameTheSetting() {
        RecoveryOptions d = quick(RecoveryMethod.LORA, 1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RecoveryOptions(RecoveryMethod.LORA, 0,
                1e-3, 1, 8, TrainingLoss.CE, 4, 8, d.loraTargets(), 0, 0, Optional.empty()));
        assertTrue(e.getMessage().contains("--recover-steps"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new RecoveryOptions(RecoveryMethod.LORA, 1,
                1e-3, 1, 8, TrainingLoss.CE, 4, 8, List.of("wx"), 0, 0, Optional.empty()));
        assertTrue(e.getMessage().contains("wq,wk,wv,wo,w1,w2,w3"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> RecoveryMethod.parse("full"));
        assertTrue(e.getMessage().contains("none, lora or masked"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> RecoveredCompression.compress(stories,
                CompressionSpec.parse("int8", QuantMethod.MINMAX, PruneMethod.MAGNITUDE), calibration, d, Optional.empty(), Optional.empty()));
        assertTrue(e.getMessage().contains("--sparsity"), e.getMessage());
    }
}
