package org.llmnpu.sw.io.hf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.SyntheticWeights;
import org.llmnpu.sw.model.Transformer;
import org.llmnpu.sw.runtime.Generators;
import org.llmnpu.sw.sample.Sampler;
import org.llmnpu.sw.sample.SamplerConfig;
import org.llmnpu.sw.run.SwExport;

/**
 * The safetensors path against an independent NumPy implementation of Hugging Face's LLaMA (rotate-half RoPE, GQA,
 * SwiGLU, RMSNorm; {@code hf_llama_reference.py}, float64): greedy tokens equal and logits within float32 noise, on
 * stories260K exported to a Hugging Face directory and on synthetic GQA models in F32 (sharded, untied, tied), F16 and
 * BF16 with LLaMA-3's rope_theta, head dims 8 and 16.
 */
class HfReferenceTest {

    /** Logits of float32 vs float64 forwards of these small models differ by ~1e-5; a wrong RoPE layout by ~1. */
    static final double LOGIT_TOLERANCE = 2e-3;
    /** Below this top-1 lead the reference's choice is within float32 noise: the comparison stops there. */
    static final double NEAR_TIE = 1e-3;

    @Test
    void stories260KExportedAsHuggingFaceMatchesTheNumpyReference(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("new-parent").resolve("stories260K-hf");
        SwExport.export("stories260K", java.util.Optional.empty(), "hf", dir);
        int agreed = compareGreedy(HfCheckpoint.read(dir), dir, new int[] {1}, 40);
        assertTrue(agreed >= 37, "stories260K: greedy tokens agree for " + agreed + " of 40 steps");
    }

    /** Head dims 8 and 16: for 8 the rotate-half permutation applied twice equals its inverse, for 16 it does not. */
    @ParameterizedTest(name = "{0}, {1} shard(s), tied={2}, {3} heads")
    @CsvSource({"F32, 3, false, 8", "F32, 1, true, 4", "F16, 1, false, 8", "BF16, 2, true, 4"})
    void syntheticGqaModelsInEveryDtypeMatchTheNumpyReference(SafetensorsDtype dtype, int shards, boolean tied, int heads,
                                                              @TempDir Path tmp) throws Exception {
        ModelConfig c = new ModelConfig(64, 160, 2, heads, 2, 256, 128, 500000f, 1e-6f);
        ModelWeights w = SyntheticWeights.generate(c, 11);
        if (tied) {
            w = new ModelWeights(c, w.tokenEmbedding(), w.layers(), w.finalNorm(), w.tokenEmbedding());
        }
        Path dir = tmp.resolve("model");
        HfCheckpoint.write(w, dir, dtype, null, shards);
        ModelWeights read = HfCheckpoint.read(dir);
        assertEquals(c, read.config());
        if (tied) {
            assertSame(read.tokenEmbedding(), read.lmHead());
        } else {
            assertNotSame(read.tokenEmbedding(), read.lmHead());
        }
        int agreed = compareGreedy(read, dir, new int[] {1, 17, 42, 99, 5}, 24);
        assertTrue(agreed >= 12, dtype + ": greedy tokens agree for " + agreed + " of 24 steps");
    }

    @Test
    void f32RoundTripGivesBitIdenticalWeightsAndLogits(@TempDir Path tmp) throws Exception {
        ModelWeights original = ModelCatalog.load("stories260K", 1);
        Path dir = tmp.resolve("hf");
        SwExport.export("stories260K", java.util.Optional.empty(), "hf", dir);
        ModelWeights back = ModelCatalog.load(dir.toString(), 1);
        assertEquals(original.config(), back.config());
        assertSame(back.tokenEmbedding(), back.lmHead(), "stories260K's tied classifier stays tied");
        for (int l = 0; l < original.layers().length; l++) {
            float[][][] a = original.layers()[l].projections();
            float[][][] b = back.layers()[l].projections();
            for (int m = 0; m < a.length; m++) {
                for (int r = 0; r < a[m].length; r++) {
                    assertArrayEquals(a[m][r], b[m][r], "layer " + l + " matrix " + m + " row " + r);
                }
            }
        }
        int[] tokens = {1, 403, 407, 261, 378, 300, 12};
        Transformer t1 = new Transformer(original);
        Transformer t2 = new Transformer(back);
        float[][] l1 = t1.forwardAll(tokens, t1.newCache(tokens.length));
        float[][] l2 = t2.forwardAll(tokens, t2.newCache(tokens.length));
        for (int p = 0; p < tokens.length; p++) {
            assertArrayEquals(l1[p], l2[p], "logits at position " + p);
        }
    }

    /**
     * Greedy decoding from {@code prompt} by our FP32 path and by the NumPy reference: tokens must be equal up to
     * the reference's first near-tie (then the comparison stops) and logits within {@link #LOGIT_TOLERANCE}.
     *
     * @return the steps compared (all of them unless a near-tie came first)
     */
    static int compareGreedy(ModelWeights w, Path dir, int[] prompt, int steps) throws Exception {
        NumpyReference.Result ref = NumpyReference.run(dir, steps, prompt);
        Transformer t = new Transformer(w);
        int[] ours = Generators.dynamic(t, prompt, steps, new Sampler(new SamplerConfig(0f, 0, 1f, 1))).tokens();
        int[] seq = java.util.Arrays.copyOf(prompt, prompt.length + steps - 1);
        System.arraycopy(ours, 0, seq, prompt.length, steps - 1);
        float[][] logits = t.forwardAll(seq, t.newCache(seq.length));
        int compared = 0;
        double maxDiff = 0;
        for (int i = 0; i < steps; i++) {
            if (ref.margin(i) < NEAR_TIE) {
                break;
            }
            assertEquals(ref.tokens()[i], ours[i], dir + ": greedy token " + i);
            float[] mine = logits[prompt.length - 1 + i];
            for (int v = 0; v < mine.length; v++) {
                maxDiff = Math.max(maxDiff, Math.abs(mine[v] - ref.logits()[i][v]));
            }
            compared++;
        }
        assertTrue(maxDiff < LOGIT_TOLERANCE, dir + ": max |logit difference| " + maxDiff);
        System.out.printf("HF reference %s: %d/%d greedy tokens equal, max |logit diff| %.2e%n", dir.getFileName(), compared,
                steps, maxDiff);
        return compared;
    }
}
