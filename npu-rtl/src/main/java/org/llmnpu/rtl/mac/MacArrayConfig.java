package org.llmnpu.rtl.mac;

import static org.llmnpu.hdl.Hw.log2Ceil;

/**
 * Parameters of the weight-stationary MAC array ({@link MacArray}).
 *
 * @param rows PE rows (K per pass, before sparsity), 1..128; a multiple of N with N:M sparsity (2 for 2:4, 4 for 4:8)
 * @param cols PE columns (N per pass), 1..128
 * @param accWidth periphery accumulator width in bits, 2..32
 * @param mTile depth of each column's periphery accumulator bank (M rows per chunk), 2..1024
 * @param icAccumDepth K tiles folded locally before a psum write-back, 1..65536; 0 = all K tiles
 * @param sparsity {@link WeightSparsity#NONE}, {@link WeightSparsity#S2_4} or {@link WeightSparsity#S4_8}
 */
public record MacArrayConfig(int rows, int cols, int accWidth, int mTile, int icAccumDepth, WeightSparsity sparsity) {

  /** {@code icAccumDepth} value meaning "fold every K tile locally; write only final results". */
  public static final int ALL_K_TILES = 0;

  public MacArrayConfig {
    require(rows >= 1 && rows <= 128, "rows must be in 1..128, got " + rows);
    require(cols >= 1 && cols <= 128, "cols must be in 1..128, got " + cols);
    require(accWidth >= 2 && accWidth <= 32, "accWidth must be in 2..32, got " + accWidth);
    require(mTile >= 2 && mTile <= 1024, "mTile must be in 2..1024, got " + mTile);
    require(icAccumDepth >= 0 && icAccumDepth <= 65536,
        "icAccumDepth must be in 0..65536 (0 = all K tiles), got " + icAccumDepth);
    require(sparsity != null, "sparsity must be one of " + WeightSparsity.allowedNames() + ", got null");
    require(rows % sparsity.kept() == 0, "rows must be a multiple of " + sparsity.kept() + " with "
        + sparsity.cliName() + " sparsity (" + sparsity.kept() + " PE rows per group of " + sparsity.group()
        + " K), got " + rows);
  }

  /** NPU-SPEC defaults: 8×8, 32-bit accumulators, mTile 16, all K tiles folded, dense. */
  public static MacArrayConfig defaults() {
    return new MacArrayConfig(8, 8, 32, 16, ALL_K_TILES, WeightSparsity.NONE);
  }

  static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }

  /** Logical K covered by one pass: {@code rows}, or {@code 2·rows} with 2:4 or 4:8. */
  public int kPerTile() {
    return sparsity.kPerTile(rows);
  }

  /** Activations per PE row per beat: 1 dense, the whole group (4 with 2:4, 8 with 4:8) when sparse. */
  public int actsPerRow() {
    return sparsity.group();
  }

  /** Bits of one PE's weight entry: the INT8 value, plus its index (2 bits with 2:4, 3 with 4:8). */
  public int weightEntryBits() {
    return 8 + sparsity.indexBits();
  }

  /**
   * Width of the partial sums moving down a column: exact for {@code rows} products of at most
   * 2^14 in magnitude, {@code 16 + ceil(log2 rows)} bits, so the column never overflows.
   */
  public int psumWidth() {
    return 16 + log2Ceil(rows);
  }

  /** Whether every K tile is folded locally (no psum write-backs). */
  public boolean foldsAllKTiles() {
    return icAccumDepth == ALL_K_TILES;
  }

  /** A short tag for module names: {@code 8x8_a32_m16_d0_none}. */
  public String tag() {
    return rows + "x" + cols + "_a" + accWidth + "_m" + mTile + "_d" + icAccumDepth + "_" + sparsity.cliName();
  }
}
