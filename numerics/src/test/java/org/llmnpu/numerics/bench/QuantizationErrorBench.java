package org.llmnpu.numerics.bench;

import java.util.Locale;
import org.apache.commons.math3.distribution.TDistribution;
import org.apache.commons.math3.random.RandomGenerator;
import org.apache.commons.math3.random.Well19937c;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.numerics.fp.Rounding;
import org.llmnpu.numerics.mx.MxBlock;
import org.llmnpu.numerics.mx.MxElementType;
import org.llmnpu.numerics.mx.MxQuantizer;

/**
 * Figure for issue 5: error of quantizing two 512×1024 FP32 matrices (rows = channels, columns =
 * the reduction dimension) to each MX format and to INT8.
 *
 * <ul>
 *   <li>heavy-tailed: i.i.d. Student-t with 3 degrees of freedom;</li>
 *   <li>outlier channels: i.i.d. N(0, 1) with 1 % of the columns (input channels) scaled by 30,
 *       the activation pattern of LLMs.</li>
 * </ul>
 * MX blocks are 32 consecutive elements of a row (RNE, OCP shared exponent). INT8 per-channel: one
 * symmetric scale absmax/127 per row, round half even, clamp to ±127. INT8 per-tensor: one scale.
 * Metrics: relative Frobenius error ‖Q(X) − X‖/‖X‖ and SNR = 10·log10(Σx² / Σ(Q(x) − x)²).
 *
 * <p>Run: {@code mvn -q -pl numerics -am test -Dbench -Dtest='*Bench' -Dsurefire.failIfNoSpecifiedTests=false}
 */
@ExtendWith(BenchRecord.class)
class QuantizationErrorBench {
    static final int ROWS = 512;
    static final int COLS = 1024;

    static double[][] studentT(long seed) {
        RandomGenerator rng = new Well19937c(seed);
        TDistribution t = new TDistribution(rng, 3);
        double[][] x = new double[ROWS][COLS];
        for (double[] row : x) {
            for (int j = 0; j < COLS; j++) {
                row[j] = (float) t.sample();
            }
        }
        return x;
    }

    static double[][] outlierChannels(long seed) {
        RandomGenerator rng = new Well19937c(seed);
        boolean[] outlier = new boolean[COLS];
        for (int k = 0; k < COLS / 100; k++) {
            outlier[rng.nextInt(COLS)] = true;
        }
        double[][] x = new double[ROWS][COLS];
        for (double[] row : x) {
            for (int j = 0; j < COLS; j++) {
                row[j] = (float) (rng.nextGaussian() * (outlier[j] ? 30 : 1));
            }
        }
        return x;
    }

    static double[][] mx(double[][] x, MxElementType type) {
        double[][] q = new double[x.length][COLS];
        for (int i = 0; i < x.length; i++) {
            for (int j = 0; j < COLS; j += MxBlock.SIZE) {
                double[] block = java.util.Arrays.copyOfRange(x[i], j, j + MxBlock.SIZE);
                double[] deq = MxQuantizer.quantize(type, block, Rounding.NEAREST_EVEN).dequantize();
                System.arraycopy(deq, 0, q[i], j, MxBlock.SIZE);
            }
        }
        return q;
    }

    static double[][] int8(double[][] x, boolean perChannel) {
        double tensorMax = 0;
        for (double[] row : x) {
            for (double v : row) {
                tensorMax = Math.max(tensorMax, Math.abs(v));
            }
        }
        double[][] q = new double[x.length][COLS];
        for (int i = 0; i < x.length; i++) {
            double amax = 0;
            for (double v : x[i]) {
                amax = Math.max(amax, Math.abs(v));
            }
            double scale = (perChannel ? amax : tensorMax) / 127;
            for (int j = 0; j < COLS; j++) {
                q[i][j] = scale == 0 ? 0 : Math.max(-127, Math.min(127, Math.rint(x[i][j] / scale))) * scale;
            }
        }
        return q;
    }

    /** {relative error, SNR in dB}. */
    static double[] error(double[][] x, double[][] q) {
        double signal = 0;
        double noise = 0;
        for (int i = 0; i < x.length; i++) {
            for (int j = 0; j < COLS; j++) {
                signal += x[i][j] * x[i][j];
                noise += (q[i][j] - x[i][j]) * (q[i][j] - x[i][j]);
            }
        }
        return new double[] {Math.sqrt(noise / signal), 10 * Math.log10(signal / noise)};
    }

    @Test
    void printQuantizationErrorTable() {
        double[][] heavy = studentT(2026);
        double[][] outliers = outlierChannels(2027);
        System.out.println();
        System.out.println("| format | bits/elem | Student-t(3): rel. error | SNR (dB) | outlier channels: rel. error | SNR (dB) |");
        System.out.println("|---|---|---|---|---|---|");
        for (MxElementType t : new MxElementType[] {MxElementType.FP4_E2M1, MxElementType.FP6_E2M3,
                MxElementType.FP6_E3M2, MxElementType.FP8_E4M3, MxElementType.FP8_E5M2, MxElementType.INT8}) {
            row("MX" + t.name().replace("FP8_", "FP8 ").replace("FP6_", "FP6 ").replace("FP4_", "FP4 "),
                    t.bits() + 8.0 / MxBlock.SIZE, error(heavy, mx(heavy, t)), error(outliers, mx(outliers, t)));
        }
        row("INT8 per-channel", 8, error(heavy, int8(heavy, true)), error(outliers, int8(outliers, true)));
        row("INT8 per-tensor", 8, error(heavy, int8(heavy, false)), error(outliers, int8(outliers, false)));
    }

    private static void row(String name, double bits, double[] a, double[] b) {
        System.out.println(String.format(Locale.ROOT, "| %s | %.2f | %.5f | %.2f | %.5f | %.2f |", name, bits, a[0], a[1], b[0], b[1]));
    }
}
