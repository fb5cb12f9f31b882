package org.llmnpu.sw.graph;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.sw.TestModels;
import org.llmnpu.sw.model.AttentionMath;
import org.llmnpu.sw.model.DenseKvCache;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.SyntheticPrompts;
import org.llmnpu.sw.model.Transformer;

class FusedExecutionTest {

    @Test
    void onlineSoftmaxEqualsSoftmaxAttentionWithinRounding() {
        Random rnd = new Random(2);
        int n = 77;
        int d = 16;
        float[][] k = new float[n][d];
        float[][] v = new float[n][d];
        float[] q = new float[d];
        for (int t = 0; t < n; t++) {
            for (int i = 0; i < d; i++) {
                k[t][i] = (float) rnd.nextGaussian() * 3;
                v[t][i] = (float) rnd.nextGaussian();
            }
        }
        for (int i = 0; i < d; i++) {
            q[i] = (float) rnd.nextGaussian();
        }
        float[] ref = new float[d];
        AttentionMath.attendHead(q, 0, k, v, 0, n, d, new float[n], ref, 0);
        for (int tile : new int[] {1, 8, 32, 77, 128}) {
            float[] got = new float[d];
            OnlineSoftmaxAttention.attendHead(q, 0, k, v, 0, n, d, tile, got, 0);
            for (int i = 0; i < d; i++) {
                assertEquals(ref[i], got[i], 1e-5f, "tile " + tile);
            }
        }
    }

    @Test
    void fusedGraphExecutionMatchesTheUnfusedModel() {
        ModelWeights w = TestModels.micro(12);
        int[] tokens = SyntheticPrompts.prompt(TestModels.MICRO, 40, 3);
        Transformer reference = new Transformer(w);
        float[][] expected = reference.forwardAll(tokens, reference.newCache(40));
        FusedDecoderExecutor fused = new FusedDecoderExecutor(w, 16);
        DenseKvCache cache = new DenseKvCache(TestModels.MICRO, 40);
        // Bound: online SoftMax changes summation order, a few float ulps per attention output, which the
        // following layers amplify by at most their gain; 1e-4 of the logit range is ample and still tight.
        for (int pos = 0; pos < tokens.length; pos++) {
            float[] got = fused.forward(tokens[pos], pos, cache);
            float range = 0;
            for (float x : expected[pos]) {
                range = Math.max(range, Math.abs(x));
            }
            for (int i = 0; i < got.length; i++) {
                assertEquals(expected[pos][i], got[i], 1e-4f * range, "position " + pos + " logit " + i);
            }
        }
    }
}
