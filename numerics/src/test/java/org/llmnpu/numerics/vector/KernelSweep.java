package org.llmnpu.numerics.vector;

import java.util.Random;
import org.llmnpu.numerics.fp16.Fp16;

/** Test inputs for the kernels: random FP16 vectors and the corner cases the bounds must hold on. */
final class KernelSweep {
    private KernelSweep() {
    }

    static short[] gaussian(Random rnd, int n, double mean, double sigma) {
        short[] x = new short[n];
        for (int i = 0; i < n; i++) {
            x[i] = Fp16.fromDouble(mean + sigma * rnd.nextGaussian());
        }
        return x;
    }

    static short[] constantWithUlpNoise(Random rnd, int n, double value) {
        short base = Fp16.fromDouble(value);
        short[] x = new short[n];
        for (int i = 0; i < n; i++) {
            x[i] = (short) (base + rnd.nextInt(3) - 1);
        }
        return x;
    }

    static double[] toDouble(short[] x) {
        double[] d = new double[x.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = Fp16.toDouble(x[i]);
        }
        return d;
    }

    static double maxUlp(short[] got, double[] reference) {
        double max = 0;
        for (int i = 0; i < got.length; i++) {
            max = Math.max(max, Fp16.ulpError(got[i], reference[i]));
        }
        return max;
    }

    /** Largest error in ULPs of max(|ref_i|, max_j |ref_j| / 16): the LayerNorm metric. */
    static double maxUlpWithRowFloor(short[] got, double[] reference) {
        double rowMax = 0;
        for (double r : reference) {
            rowMax = Math.max(rowMax, Math.abs(r));
        }
        double floor = rowMax / 16;
        double max = 0;
        for (int i = 0; i < got.length; i++) {
            double magnitude = Math.max(Math.abs(reference[i]), floor);
            int e = magnitude == 0 ? -14 : Math.max(Math.getExponent(magnitude), -14);
            max = Math.max(max, Math.abs(Fp16.toDouble(got[i]) - reference[i]) / Math.scalb(1.0, e - 10));
        }
        return max;
    }
}
