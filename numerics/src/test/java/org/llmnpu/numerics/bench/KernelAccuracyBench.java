package org.llmnpu.numerics.bench;

import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.numerics.fp16.Fp16;
import org.llmnpu.numerics.vector.Norms;
import org.llmnpu.numerics.vector.Softmax;
import org.llmnpu.numerics.vector.VectorConfig;

/**
 * Figure for issue 5: measured worst-case error in FP16 ULPs of the SoftMax and RMSNorm kernels
 * against double precision, per length and lane count, over random rows (σ = 1, 4, 20) and the
 * corner cases (logits around +6·10^4 and −6·10^4; near-constant rows for the norm).
 *
 * <p>Run: {@code mvn -q -pl numerics -am test -Dbench -Dtest='*Bench' -Dsurefire.failIfNoSpecifiedTests=false}
 */
@ExtendWith(BenchRecord.class)
class KernelAccuracyBench {

    private static short[] gaussian(Random rnd, int n, double mean, double sigma) {
        short[] x = new short[n];
        for (int i = 0; i < n; i++) {
            x[i] = Fp16.fromDouble(mean + sigma * rnd.nextGaussian());
        }
        return x;
    }

    private static double softmaxError(short[] x, VectorConfig c) {
        double m = Double.NEGATIVE_INFINITY;
        for (short v : x) {
            m = Math.max(m, Fp16.toDouble(v));
        }
        double s = 0;
        for (short v : x) {
            s += Math.exp(Fp16.toDouble(v) - m);
        }
        short[] y = Softmax.softmax(x, c);
        double worst = 0;
        for (int i = 0; i < x.length; i++) {
            worst = Math.max(worst, Fp16.ulpError(y[i], Math.exp(Fp16.toDouble(x[i]) - m) / s));
        }
        return worst;
    }

    private static double rmsError(short[] x, VectorConfig c) {
        short[] gamma = new short[x.length];
        java.util.Arrays.fill(gamma, Fp16.ONE);
        double ss = 0;
        for (short v : x) {
            ss += Fp16.toDouble(v) * Fp16.toDouble(v);
        }
        double r = 1 / Math.sqrt(ss / x.length + 1e-5f);
        short[] y = Norms.rmsNorm(x, gamma, 1e-5f, c);
        double worst = 0;
        for (int i = 0; i < x.length; i++) {
            worst = Math.max(worst, Fp16.ulpError(y[i], Fp16.toDouble(x[i]) * r));
        }
        return worst;
    }

    @Test
    void printKernelErrorTable() {
        Random rnd = new Random(2026);
        System.out.println();
        System.out.println("| kernel | len | lanes | max error (ULP), random rows | max error (ULP), corner cases | stated bound |");
        System.out.println("|---|---|---|---|---|---|");
        for (int len : new int[] {128, 1024}) {
            for (int lanes : new int[] {8, 16}) {
                VectorConfig c = new VectorConfig(lanes);
                double random = 0;
                double corner = 0;
                double rmsRandom = 0;
                double rmsCorner = 0;
                for (int t = 0; t < 20; t++) {
                    random = Math.max(random, softmaxError(gaussian(rnd, len, 0, new double[] {1, 4, 20}[t % 3]), c));
                    corner = Math.max(corner, softmaxError(gaussian(rnd, len, t % 2 == 0 ? 60000 : -60000, 2000), c));
                    rmsRandom = Math.max(rmsRandom, rmsError(gaussian(rnd, len, 0, new double[] {0.01, 1, 100}[t % 3]), c));
                    rmsCorner = Math.max(rmsCorner, rmsError(gaussian(rnd, len, 1, 1e-3), c));
                }
                System.out.println(String.format(Locale.ROOT, "| softmax | %d | %d | %.2f | %.2f | %.1f |", len, lanes, random, corner, Softmax.ULP_BOUND));
                System.out.println(String.format(Locale.ROOT, "| rmsnorm | %d | %d | %.2f | %.2f | %.1f |", len, lanes, rmsRandom, rmsCorner, Norms.RMS_ULP_BOUND));
            }
        }
    }
}
