package org.llmnpu.sw.lower;

/**
 * The other block's GEMM stream woven into a block's attention ({@link PrefillOrder.Weave}: the second block's QKV
 * GEMM into the first block's attention, or the first block's gated W1/W3 GEMMs into the second block's): the stream's
 * N tiles cut into as many pieces as the attention has head groups of batched scores ({@code slots}), piece i the tiles
 * {@code [i·T/slots, (i+1)·T/slots)} of T, each emitted after its head group's scores GEMMs and before that group's
 * SoftMax; the tiles no slot took (all of them when the attention has no batched scores) after the attention. A piece's
 * first tile copies its X again (a scores GEMM wrote the X buffer since); its later tiles keep it. Both the lowering
 * ({@link BlockLane#staggered}) and the walk ({@link LayerWalk#staggeredLayer}) cut the same pieces.
 */
final class TileWeave {
  private final int tiles;
  private final int slots;
  private int next;

  /** {@code tiles} of the woven stream (its N in stream tiles) over {@code slots} head groups (≥ 0). */
  TileWeave(int tiles, int slots) {
    if (tiles < 1 || slots < 0) {
      throw new IllegalArgumentException("tiles " + tiles + " (>= 1) or slots " + slots + " (>= 0)");
    }
    this.tiles = tiles;
    this.slots = slots;
  }

  /** The next slot's tiles {from, to} (possibly empty); past the last slot, empty. */
  int[] next() {
    if (next >= slots) {
      return new int[] {tiles, tiles};
    }
    int i = next++;
    return new int[] {(int) ((long) i * tiles / slots), (int) ((long) (i + 1) * tiles / slots)};
  }

  /** The tiles no slot took: {from, tiles} (every tile with no slot; none after all of them). */
  int[] rest() {
    int from = slots == 0 ? 0 : (int) ((long) next * tiles / slots);
    next = slots;
    return new int[] {from, tiles};
  }

  /** Slots of batched scores in a block of {@code n} tokens: per batch, per scores sub-batch of ≥ 2 tokens, its head groups. */
  static int slots(int n, int batchTokens, int step, int heads, int headGroup) {
    int count = 0;
    for (int t0 = 0; t0 < n; t0 += batchTokens) {
      int nb = Math.min(batchTokens, n - t0);
      for (int ts = t0; ts < t0 + nb; ts += step) {
        if (Math.min(step, t0 + nb - ts) >= 2) {
          count += (heads + headGroup - 1) / headGroup;
        }
      }
    }
    return count;
  }
}
