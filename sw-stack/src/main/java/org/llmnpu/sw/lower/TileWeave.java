package org.llmnpu.sw.lower;

/**
 * The other block's GEMM stream woven into a block's attention ({@link PrefillOrder.Weave}: the second block's QKV
 * GEMM into the first block's attention, or the first block's gated W1/W3 and W2 GEMMs into the second block's,
 * {@link GatedWeave}): the stream's
 * N tiles cut into as many pieces as the attention has slots ({@link #slots}: its head groups of batched scores and its
 * batches' outputs), piece i the tiles {@code [i·T/slots, (i+1)·T/slots)} of T, each emitted after its head group's
 * scores GEMMs and before that group's SoftMax, or after its batch's P·V GEMMs; the tiles no slot took (all of them when the attention has no batched scores) after the attention. A piece's
 * first tile copies its X again (a scores GEMM wrote the X buffer since); its later tiles keep it. Both the lowering
 * ({@link BlockLane#staggered}) and the walk ({@link LayerWalk#staggeredLayer}) cut the same pieces.
 */
final class TileWeave {
  private final int tiles;
  private final int slots;
  /** Tiles before the attention ({@link #lead}); the pieces cut the rest. */
  private final int lead;
  private int next;

  /** {@code tiles} of the woven stream (its N in stream tiles) over {@code slots} head groups (≥ 0). */
  TileWeave(int tiles, int slots) {
    if (tiles < 1 || slots < 0) {
      throw new IllegalArgumentException("tiles " + tiles + " (>= 1) or slots " + slots + " (>= 0)");
    }
    this.tiles = tiles;
    this.slots = slots;
    this.lead = 0;
  }

  /** As above, the first {@code lead} tiles ({@code 0 <= lead <= tiles}) before the attention ({@link #lead}). */
  TileWeave(int tiles, int slots, int lead) {
    if (tiles < 1 || slots < 0 || lead < 0 || lead > tiles) {
      throw new IllegalArgumentException("tiles " + tiles + " (>= 1), slots " + slots + " (>= 0) or lead " + lead
          + " (0.." + tiles + ")");
    }
    this.tiles = tiles;
    this.slots = slots;
    this.lead = lead;
  }

  /** The tiles before the attention: {0, lead}. */
  int[] lead() {
    return new int[] {0, lead};
  }

  /** The next slot's tiles {from, to} (possibly empty); past the last slot, empty. */
  int[] next() {
    if (next >= slots) {
      return new int[] {tiles, tiles};
    }
    int i = next++;
    return new int[] {lead + (int) ((long) i * (tiles - lead) / slots), lead + (int) ((long) (i + 1) * (tiles - lead)
        / slots)};
  }

  /** The tiles no slot took: {from, tiles} (every tile with no slot; none after all of them). */
  int[] rest() {
    int from = slots == 0 ? lead : lead + (int) ((long) next * (tiles - lead) / slots);
    next = slots;
    return new int[] {from, tiles};
  }

  /**
   * Slots in a block of {@code n} tokens: per batch, per scores sub-batch of ≥ 2 tokens its head groups (after each
   * group's scores GEMMs, beside its SoftMax), then one after the batch's P·V GEMMs (beside its outputs' dequantization
   * and quantization runs). The outputs slot, measured on the steady 7B layer (edge-64 xKeep, W2 woven, 03:23 UTC):
   * int8 14,753,807 → 14,531,675 cycles, s2_4 9,511,529 → 9,395,573.
   */
  static int slots(int n, int batchTokens, int step, int heads, int headGroup) {
    int count = 0;
    for (int t0 = 0; t0 < n; t0 += batchTokens) {
      int nb = Math.min(batchTokens, n - t0);
      for (int ts = t0; ts < t0 + nb; ts += step) {
        if (Math.min(step, t0 + nb - ts) >= 2) {
          count += (heads + headGroup - 1) / headGroup;
        }
      }
      count++;
    }
    return count;
  }

  /**
   * The gated weave's lead ({@link PrefillOrder.Weave#GATED}): of the W1/W3 GEMMs' {@code tiles} (W1's, then W3's) the
   * first two thirds go before the other block's attention, so that its QKV post (scale, RoPE, K/V rows: DSP work the
   * interleaver moves beside them) keeps a W stream; the last third, then W2's tiles ({@link GatedWeave}), is woven
   * beside its SoftMax. With W2's tiles woven too, 2/3 stays the best lead for 2:4 (layer below: 0.5 9,752,425 cycles,
   * 2/3 9,511,529, 0.8 9,532,416, all 9,613,627); int8 is flat (14,745,799 / 14,753,807 / 14,864,811 / 14,895,879).
   * Measured before W2 was woven, on the steady
   * LLaMA-2-7B layer (edge-64, xKeep, 2:4; the first block's weave alone, sw-stack README): no lead 10,634,827
   * cycles, a quarter 10,462,648, a half 10,378,239, 0.65 10,340,433, three quarters 10,368,013, 0.95 10,497,111;
   * staggered 10,531,654.
   */
  static int gatedLead(int tiles) {
    return (int) (2L * tiles / 3);
  }
}
