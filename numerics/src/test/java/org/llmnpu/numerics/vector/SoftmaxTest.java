package org.llmnpu.numerics.vector;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.numerics.fp16.Fp16;

/** SoftMax on the DSP: error bound over a sweep with corner cases, specials, reduction order. */
class SoftmaxTest {

    static double[] reference(short[] x) {
        return KernelReference.softmax(KernelReference.toDouble(x));
    }

    static List<short[]> sweep() {
        Random rnd = new Random(51);
        List<short[]> cases = new ArrayList<>();
        for (int n : new int[] {1, 7, 8, 33, 128, 1024}) {
            for (double sigma : new double[] {0.01, 1, 4, 20, 100}) {
                cases.add(KernelSweep.gaussian(rnd, n, 0, sigma));
            }
            cases.add(KernelSweep.gaussian(rnd, n, 60000, 3000)); // very large logits
            cases.add(KernelSweep.gaussian(rnd, n, -60000, 50)); // very negative logits
            short[] oneHot = KernelSweep.gaussian(rnd, n, -30000, 10);
            oneHot[n / 2] = Fp16.fromDouble(30000);
            cases.add(oneHot);
            cases.add(KernelSweep.constantWithUlpNoise(rnd, n, 5.0));
        }
        return cases;
    }

    @Test
    void everyOutputIsWithinTheStatedUlpBoundForEveryLaneCount() {
        double worst = 0;
        for (short[] x : sweep()) {
            double[] ref = reference(x);
            for (int lanes : new int[] {1, 8, 16}) {
                worst = Math.max(worst, KernelReference.maxUlp(Softmax.softmax(x, new VectorConfig(lanes)), ref));
            }
        }
        assertTrue(worst <= Softmax.ULP_BOUND, "softmax max error " + worst + " ULP");
    }

    @Test
    void outputsSumToOneWithinTheRoundingOfTheReciprocal() {
        Random rnd = new Random(52);
        short[] x = KernelSweep.gaussian(rnd, 128, 0, 3);
        double sum = 0;
        for (double v : KernelReference.toDouble(Softmax.softmax(x, VectorConfig.DEFAULT))) {
            sum += v;
        }
        assertEquals(1.0, sum, 0.01);
    }

    @Test
    void nanAndInfinityPoisonTheRow() {
        short[] x = {Fp16.ONE, Fp16.NaN, Fp16.ONE};
        for (short y : Softmax.softmax(x, VectorConfig.DEFAULT)) {
            assertTrue(Fp16.isNaN(y));
        }
        short[] inf = {Fp16.ONE, Fp16.POSITIVE_INFINITY};
        assertTrue(Fp16.isNaN(Softmax.softmax(inf, VectorConfig.DEFAULT)[1]));
        short[] minusInf = {Fp16.ONE, Fp16.NEGATIVE_INFINITY};
        assertArrayEquals(new short[] {Fp16.ONE, Fp16.POSITIVE_ZERO}, Softmax.softmax(minusInf, VectorConfig.DEFAULT));
    }

    @Test
    void theLaneCountFixesTheReductionOrderAndCanChangeLowBits() {
        Random rnd = new Random(53);
        boolean differs = false;
        for (int t = 0; t < 50 && !differs; t++) {
            float[] v = new float[1000];
            for (int i = 0; i < v.length; i++) {
                v[i] = (float) rnd.nextGaussian();
            }
            float a = Reduction.sum(v, new VectorConfig(1));
            float b = Reduction.sum(v, new VectorConfig(8));
            float expected8 = laneTreeByHand(v, 8);
            assertEquals(expected8, b);
            differs = a != b;
        }
        assertTrue(differs, "sequential and 8-lane FP32 sums of 1000 values differ in the last bits somewhere");
        assertNotEquals(new VectorConfig(1), new VectorConfig(8));
    }

    private static float laneTreeByHand(float[] v, int lanes) {
        float[] p = new float[lanes];
        for (int i = 0; i < v.length; i++) {
            p[i % lanes] += v[i];
        }
        float a = p[0] + p[4];
        float b = p[1] + p[5];
        float c = p[2] + p[6];
        float d = p[3] + p[7];
        return (a + c) + (b + d);
    }
}
