package org.llmnpu.numerics.gemm;

/**
 * Weight sparsity mode of the MAC array. With {@link #S2_4} each PE row holds a compressed 2:4
 * entry, so one pass of the array covers {@code 2·rows} logical K instead of {@code rows}; the
 * numerical result is, by definition, the dense GEMM of the zero-filled weights.
 */
public enum Sparsity {
    NONE(1),
    S2_4(2);

    private final int kPerRow;

    Sparsity(int kPerRow) {
        this.kPerRow = kPerRow;
    }

    /** Logical K elements covered by one pass of an array with {@code rows} PE rows. */
    public int kPerTile(int rows) {
        return kPerRow * rows;
    }
}
