package org.llmnpu.sw.lower;

/** The rows of a 2:4-compressed block weight in memory: value rows, and INT4-packed metadata rows as many. */
final class SparseRows {
  private SparseRows() {
  }

  /** Value rows (= metadata rows) of a 2:4 block weight over K: {@code 2·ceil(K/4)}. */
  static int values(int k) {
    return 2 * ((k + 3) / 4);
  }

  /** Bytes of a packed metadata row of an N-wide 2:4 weight ({@code ceil(N/2)}, {@code load4}'s row). */
  static int metaBytes(int n) {
    return (n + 1) / 2;
  }
}
