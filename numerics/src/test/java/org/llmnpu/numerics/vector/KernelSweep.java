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
}
