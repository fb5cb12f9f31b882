package org.llmnpu.rtl.mac;

import org.llmnpu.numerics.gemm.Sparsity;
import org.llmnpu.numerics.sparse.NmPattern;

/**
 * Weight sparsity of the MAC array. An N:M mode stores weights pruned along K compressed: per
 * group of M K-elements, N INT8 values and N indices of {@code log2 M} bits. N consecutive PE rows
 * hold the N entries of one group, each receives the group's M activations and selects one by its
 * index, so one pass covers {@code rows · M / N = 2·rows} logical K.
 * {@link #S2_4}: rows {@code 2g, 2g+1}, 4 activation lanes, 2-bit index;
 * {@link #S4_8}: rows {@code 4g..4g+3}, 8 activation lanes, 3-bit index.
 */
public enum WeightSparsity {
  NONE(1, 1, 0),
  S2_4(2, 4, 2),
  S4_8(4, 8, 3);

  private final int kept;
  private final int group;
  private final int indexBits;

  WeightSparsity(int kept, int group, int indexBits) {
    this.kept = kept;
    this.group = group;
    this.indexBits = indexBits;
  }

  /** Whether weights are compressed (an N:M mode). */
  public boolean sparse() {
    return this != NONE;
  }

  /** N: kept entries per group = PE rows per group (1 dense). */
  public int kept() {
    return kept;
  }

  /** M: K elements per group = activation lanes into each PE (1 dense). */
  public int group() {
    return group;
  }

  /** Bits of a PE's index into its group's activations (0 dense). */
  public int indexBits() {
    return indexBits;
  }

  /** Logical K covered by one pass of an array with {@code rows} PE rows. */
  public int kPerTile(int rows) {
    return rows * group / kept;
  }

  /** The golden model's mode. */
  public Sparsity golden() {
    return Sparsity.valueOf(name());
  }

  /** The compressed layout ({@code numerics.sparse.NmCompressedMatrix}) pattern, or null when dense. */
  public NmPattern pattern() {
    return golden().pattern();
  }

  /** The name used on the command line: {@code none}, {@code s2_4} or {@code s4_8}. */
  public String cliName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /** The allowed names, comma-separated, for error messages. */
  public static String allowedNames() {
    return "none, s2_4, s4_8";
  }

  /** Parses {@code none}, {@code s2_4} or {@code s4_8} (case-insensitive). */
  public static WeightSparsity parse(String text) {
    for (WeightSparsity s : values()) {
      if (s.cliName().equalsIgnoreCase(text.trim())) {
        return s;
      }
    }
    throw new IllegalArgumentException("sparsity must be one of " + allowedNames() + ", got '" + text + "'");
  }
}
