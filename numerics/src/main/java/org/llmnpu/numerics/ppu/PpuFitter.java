package org.llmnpu.numerics.ppu;

import java.util.ArrayList;
import java.util.List;
import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.ArrayRealVector;
import org.apache.commons.math3.linear.QRDecomposition;
import org.apache.commons.math3.linear.RealVector;

/**
 * Builds PPU tables: deterministic, so the shipped tables are reproducible.
 *
 * <ol>
 *   <li><b>Target:</b> the ideal output code of every INT8 input, clamped to [−128, 127].</li>
 *   <li><b>Segmentation</b> (error-equalizing): the smallest tolerance τ (bisection, 40 steps) for
 *       which a greedy left-to-right partition — each segment extended while its least-squares
 *       polynomial stays within τ of the target — needs at most {@code segments} segments; spare
 *       segments then split the longest ones in half. Curved regions get short segments.</li>
 *   <li><b>Fit:</b> per segment, the least-squares polynomial in {@code t = q − base} over the
 *       segment's integer inputs (Apache Commons Math QR decomposition of the Vandermonde system).</li>
 *   <li><b>Fixed point:</b> {@code fracBits[k]} is the largest value (≤ 30) for which every segment's
 *       coefficient of t^k fits in {@code coeffBits} signed bits and every Horner partial value fits
 *       in 31 bits, made non-increasing towards k = 0; coefficients are rounded to nearest.</li>
 *   <li><b>Refinement:</b> per segment, the constant coefficient is moved in steps of 1/16 LSB
 *       (±12 steps) to minimize, on the bit-exact evaluation, first the maximum integer code error,
 *       then the maximum real error.</li>
 * </ol>
 */
public final class PpuFitter {
    private PpuFitter() {
    }

    /** Table for a shipped function. */
    public static PpuTable fit(PpuFunction function, PpuFormat format) {
        double[] ideal = new double[256];
        for (int q = -128; q <= 127; q++) {
            ideal[q + 128] = function.idealCode(q);
        }
        return fit(function.name().toLowerCase(), ideal, format, function.input(), function.output());
    }

    /** Table approximating the given ideal output codes ({@code ideal[q + 128]}). */
    public static PpuTable fit(String name, double[] ideal, PpuFormat format, QuantSpec input, QuantSpec output) {
        double[] target = new double[256];
        for (int i = 0; i < 256; i++) {
            target[i] = Math.max(-128, Math.min(127, ideal[i]));
        }
        int[] starts = segment(target, format);
        int segments = starts.length;
        int d = format.degree();
        double[][] real = new double[segments][];
        for (int s = 0; s < segments; s++) {
            real[s] = leastSquares(target, starts[s], end(starts, s), d);
        }
        int[] frac = chooseFracBits(real, starts, format);
        int[][] coeffs = new int[segments][d + 1];
        for (int s = 0; s < segments; s++) {
            for (int k = 0; k <= d; k++) {
                coeffs[s][k] = clampCoeff(Math.round(Math.scalb(real[s][k], frac[k])), format);
            }
        }
        int[] boundaries = new int[segments - 1];
        for (int s = 1; s < segments; s++) {
            boundaries[s - 1] = starts[s] - 128;
        }
        PpuTable table = new PpuTable(name, format, boundaries, coeffs, frac, input, output);
        for (int s = 0; s < segments; s++) {
            table = refineConstant(table, s, target);
        }
        return table;
    }

    private static int end(int[] starts, int s) {
        return s + 1 < starts.length ? starts[s + 1] : 256;
    }

    /** Segment start indices (0-based into the 256 inputs), exactly format.segments() of them. */
    static int[] segment(double[] target, PpuFormat format) {
        int minLen = format.degree() + 1;
        double lo = 0;
        double hi = 256;
        for (int i = 0; i < 40; i++) {
            double mid = (lo + hi) / 2;
            if (greedy(target, format.degree(), minLen, mid).size() <= format.segments()) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        List<Integer> starts = greedy(target, format.degree(), minLen, hi);
        while (starts.size() < format.segments()) {
            int longest = 0;
            for (int s = 1; s < starts.size(); s++) {
                if (length(starts, s) > length(starts, longest)) {
                    longest = s;
                }
            }
            if (length(starts, longest) < 2 * minLen) {
                throw new IllegalArgumentException("segments " + format.segments() + " too many for degree " + format.degree());
            }
            starts.add(longest + 1, starts.get(longest) + length(starts, longest) / 2);
        }
        return starts.stream().mapToInt(Integer::intValue).toArray();
    }

    private static int length(List<Integer> starts, int s) {
        return (s + 1 < starts.size() ? starts.get(s + 1) : 256) - starts.get(s);
    }

    private static List<Integer> greedy(double[] target, int degree, int minLen, double tolerance) {
        List<Integer> starts = new ArrayList<>();
        int start = 0;
        while (start < 256) {
            starts.add(start);
            int end = Math.min(256, start + minLen);
            while (end < 256 && maxResidual(target, start, end + 1, degree) <= tolerance) {
                end++;
            }
            if (256 - end < minLen) {
                end = 256;
            }
            start = end;
        }
        return starts;
    }

    private static double maxResidual(double[] target, int from, int to, int degree) {
        double[] a = leastSquares(target, from, to, degree);
        double max = 0;
        for (int i = from; i < to; i++) {
            max = Math.max(max, Math.abs(horner(a, i - from) - target[i]));
        }
        return max;
    }

    /** Least-squares coefficients a_0..a_d of target[from + t] over t = 0..to−from−1. */
    static double[] leastSquares(double[] target, int from, int to, int degree) {
        int n = to - from;
        int d = Math.min(degree, n - 1);
        double[][] vandermonde = new double[n][d + 1];
        double[] y = new double[n];
        for (int t = 0; t < n; t++) {
            double p = 1;
            for (int k = 0; k <= d; k++) {
                vandermonde[t][k] = p;
                p *= t;
            }
            y[t] = target[from + t];
        }
        RealVector solution = new QRDecomposition(new Array2DRowRealMatrix(vandermonde, false))
                .getSolver().solve(new ArrayRealVector(y, false));
        double[] a = new double[degree + 1];
        for (int k = 0; k <= d; k++) {
            a[k] = solution.getEntry(k);
        }
        return a;
    }

    private static double horner(double[] a, double t) {
        double acc = 0;
        for (int k = a.length - 1; k >= 0; k--) {
            acc = acc * t + a[k];
        }
        return acc;
    }

    private static int[] chooseFracBits(double[][] real, int[] starts, PpuFormat format) {
        int d = format.degree();
        int[] frac = new int[d + 1];
        for (int k = 0; k <= d; k++) {
            int f = 30;
            for (int s = 0; s < real.length; s++) {
                double partialMax = 0;
                for (int t = 0; t < end(starts, s) - starts[s]; t++) {
                    double partial = 0;
                    for (int j = d; j >= k; j--) {
                        partial = partial * t + real[s][j];
                    }
                    partialMax = Math.max(partialMax, Math.abs(partial));
                }
                while (f > 0 && (Math.abs(Math.scalb(real[s][k], f)) > format.coeffMax()
                        || Math.scalb(partialMax, f) >= 0x1p30)) {
                    f--;
                }
            }
            frac[k] = f;
        }
        for (int k = d - 1; k >= 0; k--) {
            frac[k] = Math.min(frac[k], frac[k + 1]);
        }
        return frac;
    }

    private static int clampCoeff(long c, PpuFormat format) {
        return (int) Math.max(format.coeffMin(), Math.min(format.coeffMax(), c));
    }

    private static PpuTable refineConstant(PpuTable table, int segment, double[] target) {
        int step = Math.max(1, 1 << Math.max(0, table.fracBits(0) - 4));
        int original = table.coefficient(segment, 0);
        PpuTable best = table;
        double[] bestScore = score(table, segment, target);
        for (int j = -12; j <= 12; j++) {
            int[][] c = table.coefficients();
            c[segment][0] = clampCoeff((long) original + (long) j * step, table.format());
            PpuTable candidate = new PpuTable(table.name(), table.format(), table.boundaries(), c, table.fracBits(),
                    table.input(), table.output());
            double[] s = score(candidate, segment, target);
            if (s[0] < bestScore[0] || (s[0] == bestScore[0] && s[1] < bestScore[1])) {
                best = candidate;
                bestScore = s;
            }
        }
        return best;
    }

    private static double[] score(PpuTable table, int segment, double[] target) {
        double maxCode = 0;
        double maxReal = 0;
        for (int q = table.base(segment); q <= table.last(segment); q++) {
            int got = PpuEvaluator.evaluate(table, q);
            maxCode = Math.max(maxCode, Math.abs(got - Math.round(target[q + 128])));
            maxReal = Math.max(maxReal, Math.abs(got - target[q + 128]));
        }
        return new double[] {maxCode, maxReal};
    }
}
