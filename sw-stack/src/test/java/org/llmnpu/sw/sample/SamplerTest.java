package org.llmnpu.sw.sample;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class SamplerTest {

    private static final float[] LOGITS = {1f, 3f, 2f, 0f, 2.5f};

    @Test
    void greedyIsOneHotAtTheArgmax() {
        double[] p = new Sampler(SamplerConfig.greedy()).distribution(LOGITS);
        assertArrayEquals(new double[] {0, 1, 0, 0, 0}, p);
    }

    @Test
    void topKKeepsTheKMostLikelyTokens() {
        double[] p = new Sampler(new SamplerConfig(1f, 2, 1f, 0)).distribution(LOGITS);
        assertEquals(0, p[0]);
        assertEquals(0, p[2]);
        assertEquals(1.0, p[1] + p[4], 1e-12);
        assertEquals(Math.exp(3) / (Math.exp(3) + Math.exp(2.5)), p[1], 1e-12);
    }

    @Test
    void topPKeepsTheSmallestSetReachingP() {
        double[] p = new Sampler(new SamplerConfig(1f, 0, 0.5f, 0)).distribution(LOGITS);
        // softmax: token 1 holds 0.43, tokens 1 and 4 together 0.69 >= 0.5
        assertTrue(p[1] > 0 && p[4] > 0);
        assertEquals(0, p[2]);
        assertEquals(0, p[0]);
    }

    @Test
    void lowTemperatureSharpensTheDistribution() {
        double hot = new Sampler(SamplerConfig.temperature(2f, 0)).distribution(LOGITS)[1];
        double cold = new Sampler(SamplerConfig.temperature(0.5f, 0)).distribution(LOGITS)[1];
        assertTrue(cold > hot);
    }

    @Test
    void sameSeedSameTokens() {
        Sampler a = new Sampler(SamplerConfig.temperature(1f, 9));
        Sampler b = new Sampler(SamplerConfig.temperature(1f, 9));
        for (int i = 0; i < 50; i++) {
            assertEquals(a.sample(LOGITS), b.sample(LOGITS));
        }
    }

    @Test
    void badSettingsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> new SamplerConfig(-1f, 0, 1f, 0));
        assertThrows(IllegalArgumentException.class, () -> new SamplerConfig(1f, 0, 0f, 0));
        assertThrows(IllegalArgumentException.class, () -> new SamplerConfig(1f, -2, 1f, 0));
    }
}
