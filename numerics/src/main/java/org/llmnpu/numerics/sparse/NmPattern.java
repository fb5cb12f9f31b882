package org.llmnpu.numerics.sparse;

/**
 * An N:M structured-sparsity pattern along the reduction (K) dimension: in every group of
 * {@code m} consecutive K-elements at most {@code n} are non-zero. The compressed layout stores
 * the {@code n} kept values and, for each, its position inside the group in {@code indexBits} bits.
 */
public enum NmPattern {
    /** 2:4 — two values and two 2-bit indices per group of four. */
    TWO_FOUR(2, 4, 2),
    /** 4:8 — four values and four 3-bit indices per group of eight. */
    FOUR_EIGHT(4, 8, 3);

    private final int n;
    private final int m;
    private final int indexBits;

    NmPattern(int n, int m, int indexBits) {
        this.n = n;
        this.m = m;
        this.indexBits = indexBits;
    }

    public int n() {
        return n;
    }

    public int m() {
        return m;
    }

    public int indexBits() {
        return indexBits;
    }

    /** Parses {@code 2:4} or {@code 4:8}. */
    public static NmPattern parse(String text) {
        return switch (text.trim()) {
            case "2:4" -> TWO_FOUR;
            case "4:8" -> FOUR_EIGHT;
            default -> throw new IllegalArgumentException("sparsity must be 2:4 or 4:8, got '" + text + "'");
        };
    }

    @Override
    public String toString() {
        return n + ":" + m;
    }
}
