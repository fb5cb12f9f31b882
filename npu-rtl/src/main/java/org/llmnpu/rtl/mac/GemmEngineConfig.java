package org.llmnpu.rtl.mac;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.rtl.mac.MacArrayConfig.require;

/**
 * Parameters of {@link GemmEngine}: the array and the capacity of its on-chip buffers.
 *
 * @param array the MAC array
 * @param maxM largest M (activation rows) the buffers hold, 1..65536
 * @param maxK largest K, 1..65536
 * @param maxN largest N, 1..65536
 */
public record GemmEngineConfig(MacArrayConfig array, int maxM, int maxK, int maxN) {

  public GemmEngineConfig {
    require(array != null, "array config is required");
    require(maxM >= 1 && maxM <= 65536, "maxM must be in 1..65536, got " + maxM);
    require(maxK >= 1 && maxK <= 65536, "maxK must be in 1..65536, got " + maxK);
    require(maxN >= 1 && maxN <= 65536, "maxN must be in 1..65536, got " + maxN);
    long words = (1L << (mBits(maxM) + tileBits(maxK, array.kPerTile()))) * array.kPerTile()
        + (1L << (mBits(maxM) + tileBits(maxN, array.cols()))) * array.cols();
    require(words <= (1L << 24), "buffers of maxM " + maxM + ", maxK " + maxK + ", maxN " + maxN
        + " exceed 2^24 elements; lower the capacities");
  }

  private static int mBits(int maxM) {
    return bitsToHold(maxM - 1);
  }

  private static int tileBits(int max, int perTile) {
    return bitsToHold((max + perTile - 1) / perTile - 1);
  }

  /** Address bits of an M row. */
  public int mBits() {
    return mBits(maxM);
  }

  /** Address bits of a K tile. */
  public int kTileBits() {
    return tileBits(maxK, array.kPerTile());
  }

  /** Address bits of an N tile. */
  public int nTileBits() {
    return tileBits(maxN, array.cols());
  }

  /** Address bits of a PE row. */
  public int rowBits() {
    return bitsToHold(array.rows() - 1);
  }

  /** K tiles folded per group, 0 meaning all (also when icAccumDepth covers every possible K tile). */
  public int groupDepth() {
    int maxKTiles = (maxK + array.kPerTile() - 1) / array.kPerTile();
    int d = array.icAccumDepth();
    return d == MacArrayConfig.ALL_K_TILES || d >= maxKTiles ? 0 : d;
  }
}
