package org.llmnpu.sw.model;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.llmnpu.sw.TestModels;

class SyntheticModelTest {

    @Test
    void sameSeedGivesIdenticalWeightsAndLogits() {
        ModelWeights a = TestModels.micro(5);
        ModelWeights b = TestModels.micro(5);
        assertArrayEquals(a.layers()[1].w2()[3], b.layers()[1].w2()[3]);
        int[] prompt = SyntheticPrompts.prompt(TestModels.MICRO, 10, 1);
        Transformer ta = new Transformer(a);
        Transformer tb = new Transformer(b);
        assertArrayEquals(ta.forwardAll(prompt, ta.newCache(10))[9], tb.forwardAll(prompt, tb.newCache(10))[9]);
        assertFalse(java.util.Arrays.equals(a.layers()[0].wq()[0], TestModels.micro(6).layers()[0].wq()[0]));
    }

    @Test
    void attentionIsFarFromUniformWithASinkAndLocality() {
        ModelConfig c = ModelConfig.tiny();
        Transformer t = new Transformer(SyntheticWeights.generate(c, 42));
        int[] prompt = SyntheticPrompts.prompt(c, 96, 3);
        AttentionStatistics s = AttentionStatistics.measure(t, prompt, 4);
        double uniformShare = 1.0 / 96;
        assertTrue(s.relativeEntropy() < 0.75, "relative entropy " + s.relativeEntropy());
        assertTrue(s.sinkMass() > 5 * uniformShare, "sink mass " + s.sinkMass());
        assertTrue(s.recentMass() > 4 * 8 * uniformShare, "recent mass " + s.recentMass());
    }

    @Test
    void weightsHaveHeavyTailsAndOutlierChannels() {
        ModelWeights w = SyntheticWeights.generate(ModelConfig.tiny(), 42);
        float[][] m = w.layers()[0].w1();
        double sum2 = 0;
        double sum4 = 0;
        int n = 0;
        for (float[] row : m) {
            for (float v : row) {
                sum2 += v * v;
                sum4 += (double) v * v * v * v;
                n++;
            }
        }
        double kurtosis = (sum4 / n) / Math.pow(sum2 / n, 2);
        assertTrue(kurtosis > 4, "Gaussian kurtosis is 3; heavy tails need more, got " + kurtosis);
        float[] e = w.tokenEmbedding()[7];
        double rms = 0;
        double max = 0;
        for (float v : e) {
            rms += v * v;
            max = Math.max(max, Math.abs(v));
        }
        rms = Math.sqrt(rms / e.length);
        assertTrue(max > 4 * rms, "an outlier channel should stand out: max " + max + " rms " + rms);
    }

    @Test
    void badConfigurationsNameTheParameter() {
        var e = assertThrows(IllegalArgumentException.class, () -> new ModelConfig(32, 64, 2, 3, 1, 64, 64));
        assertTrue(e.getMessage().startsWith("heads"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new ModelConfig(32, 64, 2, 4, 3, 64, 64));
        assertTrue(e.getMessage().startsWith("kvHeads"), e.getMessage());
    }

    @Test
    void tokensOutsideTheVocabularyAreRejected() {
        Transformer t = new Transformer(TestModels.micro(1));
        assertThrows(IllegalArgumentException.class, () -> t.forward(64, 0, t.newCache(4)));
    }
}
