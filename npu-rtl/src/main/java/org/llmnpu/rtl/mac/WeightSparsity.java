package org.llmnpu.rtl.mac;

/**
 * Weight sparsity of the MAC array. {@link #S2_4}: weights pruned 2:4 along K are stored
 * compressed (per group of 4 K-elements, 2 INT8 values + 2 two-bit indices); PE rows
 * {@code 2g} and {@code 2g+1} hold the two entries of group {@code g}, receive the group's 4
 * activations and select one by index, so one pass covers {@code 2·rows} logical K.
 */
public enum WeightSparsity {
  NONE(1),
  S2_4(2);

  private final int kPerRow;

  WeightSparsity(int kPerRow) {
    this.kPerRow = kPerRow;
  }

  /** Logical K covered by one pass of an array with {@code rows} PE rows. */
  public int kPerTile(int rows) {
    return kPerRow * rows;
  }

  /** The name used on the command line: {@code none} or {@code s2_4}. */
  public String cliName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /** Parses {@code none} or {@code s2_4} (case-insensitive). */
  public static WeightSparsity parse(String text) {
    for (WeightSparsity s : values()) {
      if (s.cliName().equalsIgnoreCase(text.trim())) {
        return s;
      }
    }
    throw new IllegalArgumentException("sparsity must be one of none, s2_4, got '" + text + "'");
  }
}
