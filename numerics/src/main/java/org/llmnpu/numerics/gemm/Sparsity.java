package org.llmnpu.numerics.gemm;

import org.llmnpu.numerics.sparse.NmPattern;

/**
 * Weight sparsity mode of the MAC array. With an N:M mode ({@link #S2_4}, {@link #S4_8}) the
 * weights are pruned along K to at most N non-zeros in every group of M consecutive K rows
 * (groups start at multiples of M); N PE rows hold a group's N compressed entries, so one pass of
 * the array covers {@code rows · M / N = 2·rows} logical K instead of {@code rows}. The numerical
 * result is, by definition, the dense GEMM of the zero-filled weights.
 */
public enum Sparsity {
    NONE(1, 1),
    S2_4(2, 4),
    S4_8(4, 8);

    private final int kept;
    private final int group;

    Sparsity(int kept, int group) {
        this.kept = kept;
        this.group = group;
    }

    /** Kept entries per group (N of N:M); 1 for dense. */
    public int kept() {
        return kept;
    }

    /** K rows per group (M of N:M); 1 for dense. */
    public int group() {
        return group;
    }

    /** The compressed-layout pattern, or null for {@link #NONE}. */
    public NmPattern pattern() {
        return switch (this) {
            case NONE -> null;
            case S2_4 -> NmPattern.TWO_FOUR;
            case S4_8 -> NmPattern.FOUR_EIGHT;
        };
    }

    /** Logical K elements covered by one pass of an array with {@code rows} PE rows. */
    public int kPerTile(int rows) {
        return rows * group / kept;
    }
}
