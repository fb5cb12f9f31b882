package org.llmnpu.numerics.sparse;

/**
 * N:M magnitude pruning along K of a matrix [rows][K]: in every group of M consecutive elements of
 * a row the N of largest magnitude are kept and the others set to zero. Ties keep the lower index,
 * so the result is deterministic. K must be a multiple of M.
 */
public final class NmPruner {

    private NmPruner() {
    }

    /** Returns a pruned copy ("zero-filled dense"). */
    public static float[][] prune(float[][] weights, NmPattern pattern) {
        float[][] out = new float[weights.length][];
        for (int r = 0; r < weights.length; r++) {
            out[r] = pruneRow(weights[r], pattern);
        }
        return out;
    }

    public static float[] pruneRow(float[] row, NmPattern pattern) {
        checkK(row.length, pattern);
        float[] out = new float[row.length];
        int m = pattern.m();
        for (int g = 0; g < row.length; g += m) {
            boolean[] keep = keptPositions(row, g, pattern);
            for (int i = 0; i < m; i++) {
                out[g + i] = keep[i] ? row[g + i] : 0f;
            }
        }
        return out;
    }

    /** Which of the M positions of the group starting at {@code from} survive. */
    static boolean[] keptPositions(float[] row, int from, NmPattern pattern) {
        int m = pattern.m();
        boolean[] keep = new boolean[m];
        for (int k = 0; k < pattern.n(); k++) {
            int best = -1;
            for (int i = 0; i < m; i++) {
                if (!keep[i] && (best < 0 || Math.abs(row[from + i]) > Math.abs(row[from + best]))) {
                    best = i;
                }
            }
            keep[best] = true;
        }
        return keep;
    }

    static void checkK(int k, NmPattern pattern) {
        if (k % pattern.m() != 0) {
            throw new IllegalArgumentException("K = " + k + " must be a multiple of M = " + pattern.m()
                    + " for " + pattern + " sparsity");
        }
    }

    /** True if every group of M holds at most N non-zeros. */
    public static boolean satisfies(float[][] weights, NmPattern pattern) {
        for (float[] row : weights) {
            checkK(row.length, pattern);
            for (int g = 0; g < row.length; g += pattern.m()) {
                int nonZeros = 0;
                for (int i = 0; i < pattern.m(); i++) {
                    nonZeros += row[g + i] != 0f ? 1 : 0;
                }
                if (nonZeros > pattern.n()) {
                    return false;
                }
            }
        }
        return true;
    }
}
