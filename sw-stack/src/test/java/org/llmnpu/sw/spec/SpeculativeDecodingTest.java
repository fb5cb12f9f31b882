package org.llmnpu.sw.spec;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.util.Random;
import org.apache.commons.math3.stat.inference.ChiSquareTest;
import org.junit.jupiter.api.Test;
import org.llmnpu.sw.TestModels;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.SyntheticPrompts;
import org.llmnpu.sw.model.SyntheticWeights;
import org.llmnpu.sw.model.Transformer;
import org.llmnpu.sw.runtime.Generators;
import org.llmnpu.sw.sample.Sampler;
import org.llmnpu.sw.sample.SamplerConfig;

class SpeculativeDecodingTest {

    private final ModelWeights target = TestModels.micro(21);
    private final int[] prompt = SyntheticPrompts.prompt(TestModels.MICRO, 8, 5);

    @Test
    void greedySpeculativeOutputEqualsGreedyTargetOutput() throws IOException {
        int[] expected = Generators.dynamic(new Transformer(target), prompt, 24, new Sampler(SamplerConfig.greedy())).tokens();
        for (String draft : new String[] {"draft=int4,gamma=4", "draft=int4+2:4,gamma=3", "draft=skip1,gamma=2"}) {
            DraftFactory.Draft d = DraftFactory.build(DraftSpec.parse(draft), target, prompt);
            SpeculativeResult r = new SpeculativeDecoder(new Transformer(target), d.model(), DraftSpec.parse(draft).gamma(),
                    SamplerConfig.greedy()).generate(prompt, 24);
            assertArrayEquals(expected, r.tokens(), draft);
            assertTrue(r.targetPasses() <= 24, "at least one token per target pass");
        }
    }

    @Test
    void aSeparateCheckpointCanDraft(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws IOException {
        java.nio.file.Path file = dir.resolve("draft.bin");
        org.llmnpu.sw.io.Llama2cCheckpoint.write(SyntheticWeights.generate(
                new org.llmnpu.sw.model.ModelConfig(16, 32, 1, 2, 1, 64, 512), 3), file);
        DraftSpec spec = DraftSpec.parse("draft=file:" + file + ",gamma=2");
        DraftFactory.Draft d = DraftFactory.build(spec, target, prompt);
        assertTrue(d.costRatio() < 0.2, "a 16-wide single-layer draft is much cheaper: " + d.costRatio());
        int[] expected = Generators.dynamic(new Transformer(target), prompt, 12, new Sampler(SamplerConfig.greedy())).tokens();
        assertArrayEquals(expected, new SpeculativeDecoder(new Transformer(target), d.model(), 2, SamplerConfig.greedy())
                .generate(prompt, 12).tokens());
    }

    @Test
    void aPerfectDraftIsAlwaysAccepted() {
        SpeculativeResult r = new SpeculativeDecoder(new Transformer(target), new Transformer(target), 4,
                SamplerConfig.temperature(1f, 3)).generate(prompt, 20);
        assertEquals(1.0, r.acceptanceRate(), 1e-12);
        assertEquals(5.0, r.tokensPerPass(), 1e-12);
    }

    @Test
    void verificationRuleEmitsTokensDistributedAsTheTarget() {
        double[] p = {0.05, 0.4, 0.1, 0.3, 0.15};
        double[] q = {0.3, 0.1, 0.3, 0.2, 0.1};
        Random rnd = new Random(17);
        int trials = 40000;
        long[] counts = new long[p.length];
        for (int i = 0; i < trials; i++) {
            int x = Sampler.draw(q, rnd);
            counts[SpeculativeSampling.verify(p, q, x, rnd).token()]++;
        }
        double[] expected = new double[p.length];
        for (int i = 0; i < p.length; i++) {
            expected[i] = p[i] * trials;
        }
        assertTrue(new ChiSquareTest().chiSquareTest(expected, counts) > 1e-3, java.util.Arrays.toString(counts));
    }

    @Test
    void sampledSpeculativeOutputFollowsTheTargetDistribution() {
        ModelWeights nanoTarget = SyntheticWeights.generate(TestModels.NANO, 1);
        ModelWeights nanoDraft = SyntheticWeights.generate(TestModels.NANO, 2);
        int[] p = {1, 4, 7};
        Transformer t = new Transformer(nanoTarget);
        float[][] logits = t.forwardAll(p, t.newCache(3));
        double[] first = new Sampler(SamplerConfig.temperature(1f, 0)).distribution(logits[2]);
        int trials = 3000;
        long[] counts = new long[first.length];
        for (int i = 0; i < trials; i++) {
            SpeculativeResult r = new SpeculativeDecoder(t, new Transformer(nanoDraft), 2, SamplerConfig.temperature(1f, i))
                    .generate(p, 1);
            counts[r.tokens()[0]]++;
        }
        // merge rare tokens so every expected count is at least 5
        double[] expected = new double[first.length];
        for (int i = 0; i < first.length; i++) {
            expected[i] = first[i] * trials;
        }
        double[] e = java.util.Arrays.stream(expected).filter(v -> v >= 5).toArray();
        long[] o = new long[e.length + 1];
        double rare = 0;
        int j = 0;
        for (int i = 0; i < first.length; i++) {
            if (expected[i] >= 5) {
                o[j++] = counts[i];
            } else {
                o[e.length] += counts[i];
                rare += expected[i];
            }
        }
        double[] eAll = java.util.Arrays.copyOf(e, e.length + 1);
        eAll[e.length] = Math.max(rare, 1e-9);
        if (rare < 5) {
            eAll = e;
            o = java.util.Arrays.copyOf(o, e.length);
        }
        assertTrue(new ChiSquareTest().chiSquareTest(eAll, o) > 1e-3, java.util.Arrays.toString(counts));
    }

    @Test
    void expectedSpeedupFollowsTheClosedForm() {
        assertEquals(1 + 0.5 + 0.25 + 0.125 + 0.0625, SpeculativeResult.expectedTokensPerPass(0.5, 4), 1e-12);
        assertEquals(1.9375 / (4 * 0.1 + 1), SpeculativeResult.expectedSpeedup(0.5, 4, 0.1), 1e-12);
        assertEquals(5, SpeculativeResult.expectedTokensPerPass(1.0, 4), 1e-12);
    }

    @Test
    void draftSpecsParseAndRejectNonsense() {
        assertEquals(new DraftSpec("compressed", "int4", 4), DraftSpec.parse("draft=int4,gamma=4"));
        assertEquals(new DraftSpec("skip", "2", 3), DraftSpec.parse("draft=skip2,gamma=3"));
        assertThrows(IllegalArgumentException.class, () -> DraftSpec.parse("gamma=4"));
        var e = assertThrows(IllegalArgumentException.class, () -> DraftSpec.parse("draft=int4,gamma=0"));
        assertTrue(e.getMessage().startsWith("gamma"));
    }

    @Test
    void layerSkippingKeepsTheFirstAndLastLayers() {
        assertArrayEquals(new boolean[] {true, true, false, true, false, true}, DraftFactory.skippedLayers(6, 2));
    }
}
