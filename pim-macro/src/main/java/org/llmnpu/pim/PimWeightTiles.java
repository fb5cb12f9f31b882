package org.llmnpu.pim;

/**
 * The weights of a GEMM as the PiM macro stores them, tile by tile: the raw {@code cellBits} of
 * each cell (INT value, FP8 code, or for PRE the pre-aligned integer) and, for PRE, each column's
 * group exponent. Cells beyond K or N are 0.
 */
public interface PimWeightTiles {
  /** Bits of the cell at row {@code row} of row group {@code kTile}, global column {@code col}. */
  long cell(int kTile, int row, int col);

  /** PRE only: the biased group exponent of column {@code col} in row group {@code kTile}. */
  default int columnExponent(int kTile, int col) {
    return 1;
  }

  /** Plain weights {@code w[K][N]} (INT values or FP8 codes), tiled by {@code rows}. */
  static PimWeightTiles plain(long[][] w, int rows) {
    return (t, r, j) -> {
      int kk = t * rows + r;
      return kk < w.length && j < w[kk].length ? w[kk][j] : 0;
    };
  }
}
