package org.llmnpu.numerics.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.numerics.fp16.Fp16;

/** RMSNorm and LayerNorm on the DSP against double precision, including near-zero variance. */
class NormsTest {
    private static final float EPS = 1e-5f;

    static List<short[]> sweep() {
        Random rnd = new Random(61);
        List<short[]> cases = new ArrayList<>();
        for (int n : new int[] {1, 8, 37, 256, 1024}) {
            for (double sigma : new double[] {1e-3, 0.1, 1, 30, 100}) {
                cases.add(KernelSweep.gaussian(rnd, n, 0, sigma));
                cases.add(KernelSweep.gaussian(rnd, n, 3 * sigma, sigma));
            }
            cases.add(KernelSweep.constantWithUlpNoise(rnd, n, 1.0)); // near-zero variance
            cases.add(KernelSweep.constantWithUlpNoise(rnd, n, 200.0));
            cases.add(new short[n]); // zero vector
        }
        return cases;
    }

    static double[] rmsReference(double[] x, double[] g, double eps) {
        return KernelReference.rmsNorm(x, g, eps);
    }

    static double[] layerReference(double[] x, double[] g, double eps) {
        return KernelReference.layerNorm(x, g, new double[x.length], eps);
    }

    @Test
    void rmsNormIsWithinItsBoundOverTheSweep() {
        Random rnd = new Random(62);
        double worst = 0;
        for (short[] x : sweep()) {
            short[] g = KernelSweep.gaussian(rnd, x.length, 1, 0.2);
            double[] ref = rmsReference(KernelReference.toDouble(x), KernelReference.toDouble(g), EPS);
            for (int lanes : new int[] {1, 8, 16}) {
                worst = Math.max(worst, KernelReference.maxUlp(Norms.rmsNorm(x, g, EPS, new VectorConfig(lanes)), ref));
            }
        }
        assertTrue(worst <= Norms.RMS_ULP_BOUND, "rmsnorm max error " + worst + " ULP");
    }

    @Test
    void layerNormIsWithinItsBoundOverTheSweep() {
        Random rnd = new Random(63);
        double worst = 0;
        short[] zeroBeta = new short[1024];
        for (short[] x : sweep()) {
            short[] g = KernelSweep.gaussian(rnd, x.length, 1, 0.2);
            double[] ref = layerReference(KernelReference.toDouble(x), KernelReference.toDouble(g), EPS);
            for (int lanes : new int[] {1, 8, 16}) {
                short[] y = Norms.layerNorm(x, g, Arrays.copyOf(zeroBeta, x.length), EPS, new VectorConfig(lanes));
                worst = Math.max(worst, KernelReference.maxUlpWithRowFloor(y, ref));
            }
        }
        assertTrue(worst <= Norms.LAYER_ULP_BOUND, "layernorm max error " + worst + " ULP");
    }

    @Test
    void layerNormAddsBetaWithOneRounding() {
        Random rnd = new Random(64);
        short[] x = KernelSweep.gaussian(rnd, 64, 2, 1);
        short[] g = KernelSweep.gaussian(rnd, 64, 1, 0.1);
        short[] beta = KernelSweep.gaussian(rnd, 64, 0, 1);
        short[] withoutBeta = Norms.layerNorm(x, g, new short[64], EPS, VectorConfig.DEFAULT);
        short[] withBeta = Norms.layerNorm(x, g, beta, EPS, VectorConfig.DEFAULT);
        for (int i = 0; i < 64; i++) {
            assertEquals(Fp16.add(withoutBeta[i], beta[i]), withBeta[i]);
        }
    }

    @Test
    void constantVectorsNormalizeToZeroAndZeroVectorsStayZero() {
        short[] x = new short[16];
        Arrays.fill(x, Fp16.fromDouble(3.5));
        short[] g = new short[16];
        Arrays.fill(g, Fp16.ONE);
        for (short y : Norms.layerNorm(x, g, new short[16], EPS, VectorConfig.DEFAULT)) {
            assertTrue(Fp16.isZero(y));
        }
        for (short y : Norms.rmsNorm(new short[16], g, EPS, VectorConfig.DEFAULT)) {
            assertTrue(Fp16.isZero(y));
        }
        assertThrows(IllegalArgumentException.class, () -> Norms.rmsNorm(x, new short[3], EPS, VectorConfig.DEFAULT));
    }
}
