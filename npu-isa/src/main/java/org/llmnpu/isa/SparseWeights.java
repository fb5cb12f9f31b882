package org.llmnpu.isa;

/**
 * The W operand of a {@link Command.Gemm} as the golden GEMM takes it: K rows of N INT8. Dense: the
 * rows at {@code w + k·wStride}. N:M ({@code E} of {@code G}): the compressed layout of
 * {@link Command.Gemm} — {@code S = E·ceil(K/G)} value rows, row {@code g·E + j} holding entry j of
 * group g for each column, then S metadata rows with each entry's position {@code 0..G−1} (the low
 * {@code log2 G} bits of the byte) — scattered into the zero-filled dense matrix
 * ({@code W[g·G + pos][n] = value}); positions past K are dropped. A group's positions in one column
 * must be distinct (else the NPU's result is undefined; the golden keeps the last entry).
 */
public final class SparseWeights {
  private SparseWeights() {
  }

  static byte[][] dense(byte[] spad, Command.Gemm g) {
    int k = (int) g.k();
    int n = (int) g.n();
    byte[][] w = new byte[k][n];
    if (g.sparsity() == Command.DENSE) {
      for (int i = 0; i < k; i++) {
        System.arraycopy(spad, (int) (g.w() + i * g.wStride()), w[i], 0, n);
      }
      return w;
    }
    int kept = g.kept();
    int group = g.group();
    long valueRows = g.wRows() / 2;
    for (long r = 0; r < valueRows; r++) {
      int values = (int) (g.w() + r * g.wStride());
      int meta = (int) (g.w() + (valueRows + r) * g.wStride());
      long base = r / kept * group;
      for (int col = 0; col < n; col++) {
        long kk = base + (spad[meta + col] & (group - 1));
        if (kk < k) {
          w[(int) kk][col] = spad[values + col];
        }
      }
    }
    return w;
  }

  /**
   * Compresses a dense N:M-pruned W (K×N, at most E non-zeros per group of G rows in each column) into
   * the value and metadata rows of the scratchpad layout: {@code 2·E·ceil(K/G)} rows of N bytes.
   */
  public static byte[][] compress(byte[][] w, int kept, int group) {
    int k = w.length;
    int n = w[0].length;
    int groups = (k + group - 1) / group;
    byte[][] rows = new byte[2 * kept * groups][n];
    for (int gi = 0; gi < groups; gi++) {
      for (int col = 0; col < n; col++) {
        int e = 0;
        for (int pos = 0; pos < group; pos++) {
          int kk = gi * group + pos;
          if (kk < k && w[kk][col] != 0 && e < kept) {
            rows[gi * kept + e][col] = w[kk][col];
            rows[kept * groups + gi * kept + e][col] = (byte) pos;
            e++;
          } else if (kk < k && w[kk][col] != 0) {
            throw new IllegalArgumentException("column " + col + " has more than " + kept + " non-zeros in K rows "
                + gi * group + ".." + (gi * group + group - 1));
          }
        }
        // Unused entries: value 0 at distinct unused positions.
        for (int pos = 0; e < kept; pos++) {
          int kk = gi * group + pos;
          boolean used = kk < k && w[kk][col] != 0;
          if (!used) {
            rows[gi * kept + e][col] = 0;
            rows[kept * groups + gi * kept + e][col] = (byte) pos;
            e++;
          }
        }
      }
    }
    return rows;
  }
}
