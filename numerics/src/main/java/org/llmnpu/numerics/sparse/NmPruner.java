package org.llmnpu.numerics.sparse;

/**
 * N:M magnitude pruning along K of a matrix [rows][K]: in every group of M consecutive elements of
 * a row the N of largest magnitude are kept and the others set to zero. Ties keep the lower index,
 * so the result is deterministic.
 *
 * <p>Ragged K: when M does not divide K, the last group of a row holds {@code r = K mod M} real
 * elements and is treated as padded with zeros to M. The padding positions are the group's
 * smallest-magnitude entries, so the N kept are the {@code min(N, r)} largest real elements (all of
 * them when {@code r <= N}); ties again keep the lower index.
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
        float[] scores = new float[row.length];
        for (int i = 0; i < row.length; i++) {
            scores[i] = Math.abs(row[i]);
        }
        return pruneRowByScore(row, scores, pattern);
    }

    /**
     * Keeps, in every group of M along the row, the N elements of largest {@code score} (ties: lower
     * index) and zeroes the rest — magnitude pruning scores {@code |w|}, activation-aware pruning
     * (Wanda) {@code |w|·‖x‖}. The last group may be ragged (see the class comment).
     */
    public static float[] pruneRowByScore(float[] row, float[] score, NmPattern pattern) {
        if (score.length != row.length) {
            throw new IllegalArgumentException("need one score per element: " + score.length + " vs " + row.length);
        }
        float[] out = new float[row.length];
        int m = pattern.m();
        for (int g = 0; g < row.length; g += m) {
            int len = Math.min(m, row.length - g);
            boolean[] keep = keptPositions(score, g, len, pattern.n());
            for (int i = 0; i < len; i++) {
                out[g + i] = keep[i] ? row[g + i] : 0f;
            }
        }
        return out;
    }

    /** Which of the {@code len} positions of the group starting at {@code from} survive (the {@code n} best scores). */
    public static boolean[] keptPositions(float[] score, int from, int len, int n) {
        boolean[] keep = new boolean[len];
        for (int k = 0; k < Math.min(n, len); k++) {
            int best = -1;
            for (int i = 0; i < len; i++) {
                if (!keep[i] && (best < 0 || score[from + i] > score[from + best])) {
                    best = i;
                }
            }
            keep[best] = true;
        }
        return keep;
    }

    /** Groups of M along a row of K elements, the last one padded when M does not divide K. */
    public static int groupsPerRow(int k, NmPattern pattern) {
        if (k < 1) {
            throw new IllegalArgumentException("K must be >= 1, got " + k);
        }
        return (k + pattern.m() - 1) / pattern.m();
    }

    /** True if every group of M holds at most N non-zeros. */
    public static boolean satisfies(float[][] weights, NmPattern pattern) {
        for (float[] row : weights) {
            for (int g = 0; g < row.length; g += pattern.m()) {
                int nonZeros = 0;
                for (int i = 0; i < Math.min(pattern.m(), row.length - g); i++) {
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
