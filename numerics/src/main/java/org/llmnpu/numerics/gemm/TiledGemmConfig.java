package org.llmnpu.numerics.gemm;

/**
 * Parameters of the weight-stationary MAC array that the tiled golden model mirrors.
 *
 * @param rows PE rows (K per tile, before sparsity), 1..256
 * @param cols PE columns (N per tile), 1..256
 * @param mTile depth of each column's periphery accumulator bank (M rows per chunk), 1..4096
 * @param accWidth periphery accumulator width in bits, 2..32
 * @param icAccumDepth K tiles folded in the periphery accumulators before a write-back, &ge; 1;
 *                     {@link #ALL_K_TILES} (or any value &ge; the number of K tiles) folds all of them
 * @param sparsity NONE, S2_4 or S4_8
 */
public record TiledGemmConfig(int rows, int cols, int mTile, int accWidth, int icAccumDepth, Sparsity sparsity) {

    /** icAccumDepth value meaning "fold every K tile locally; write back only final results". */
    public static final int ALL_K_TILES = Integer.MAX_VALUE;

    public TiledGemmConfig {
        require(rows >= 1 && rows <= 256, "rows must be in [1, 256], got " + rows);
        require(cols >= 1 && cols <= 256, "cols must be in [1, 256], got " + cols);
        require(mTile >= 1 && mTile <= 4096, "mTile must be in [1, 4096], got " + mTile);
        require(accWidth >= 2 && accWidth <= 32, "accWidth must be in [2, 32], got " + accWidth);
        require(icAccumDepth >= 1, "icAccumDepth must be >= 1 (or ALL_K_TILES), got " + icAccumDepth);
        require(sparsity != null, "sparsity must be NONE, S2_4 or S4_8, got null");
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    /** Defaults of NPU-SPEC section 1: 8×8 array, mTile 16, 32-bit accumulators, the given IC depth, dense. */
    public static TiledGemmConfig defaults(int icAccumDepth) {
        return new TiledGemmConfig(8, 8, 16, 32, icAccumDepth, Sparsity.NONE);
    }

    /** Logical K covered by one K tile: {@code rows}, or {@code 2·rows} with 2:4 or 4:8 sparsity. */
    public int kPerTile() {
        return sparsity.kPerTile(rows);
    }

    /** Number of K tiles, {@code ceil(K / kPerTile)} (0 for K = 0). */
    public long kTiles(int k) {
        return (k + (long) kPerTile() - 1) / kPerTile();
    }

    /** Number of groups of K tiles folded before each write-back, {@code ceil(kTiles / icAccumDepth)}, at least 1. */
    public long kGroups(int k) {
        long tiles = kTiles(k);
        long depth = Math.min(icAccumDepth, Math.max(tiles, 1));
        return Math.max(1, (tiles + depth - 1) / depth);
    }
}
