package org.llmnpu.numerics.gemm;

/**
 * Reference INT8 × INT8 → INT32 GEMM {@code Y[M×N] = X[M×K] · W[K×N]} with a per-MAC
 * saturating accumulator.
 *
 * <p>Semantics: for each output, {@code acc = 0}, then for k = 0, 1, …, K−1 in that order
 * {@code acc = clamp(acc + x[m][k]·w[k][n])} to the signed {@code accWidth}-bit range (each product
 * is exact, at most 2^14 in magnitude), setting the sticky overflow flag when a clamp changes the
 * sum. Without saturation the result is the exact integer dot product, independent of order.
 *
 * <p>This is the textbook definition. The MAC array saturates once per K tile instead (see
 * {@link TiledGemm}); both agree bit for bit whenever no saturation occurs.
 */
public final class IntGemm {
    private IntGemm() {
    }

    /** Per-MAC saturating GEMM as described in the class comment. */
    public static GemmResult gemm(byte[][] x, byte[][] w, int accWidth) {
        int m = x.length;
        int k = checkShapes(x, w);
        int n = w.length == 0 ? 0 : w[0].length;
        int[][] y = new int[m][n];
        boolean overflow = false;
        SaturatingAccumulator acc = new SaturatingAccumulator(accWidth);
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                acc.reset();
                for (int kk = 0; kk < k; kk++) {
                    acc.add(x[i][kk] * w[kk][j]);
                }
                y[i][j] = acc.value();
                overflow |= acc.overflow();
            }
        }
        return new GemmResult(y, overflow);
    }

    /** Exact (unbounded) integer GEMM, for tests and error analysis. */
    public static long[][] exact(byte[][] x, byte[][] w) {
        int k = checkShapes(x, w);
        int n = w.length == 0 ? 0 : w[0].length;
        long[][] y = new long[x.length][n];
        for (int i = 0; i < x.length; i++) {
            for (int j = 0; j < n; j++) {
                long s = 0;
                for (int kk = 0; kk < k; kk++) {
                    s += x[i][kk] * w[kk][j];
                }
                y[i][j] = s;
            }
        }
        return y;
    }

    /** Checks that X is M×K and W is K×N with rectangular rows; returns K. */
    static int checkShapes(byte[][] x, byte[][] w) {
        int k = w.length;
        for (int i = 0; i < x.length; i++) {
            if (x[i].length != k) {
                throw new IllegalArgumentException("x row " + i + " has " + x[i].length + " columns, expected K = " + k);
            }
        }
        int n = k == 0 ? 0 : w[0].length;
        for (int kk = 0; kk < k; kk++) {
            if (w[kk].length != n) {
                throw new IllegalArgumentException("w row " + kk + " has " + w[kk].length + " columns, expected N = " + n);
            }
        }
        return k;
    }
}
