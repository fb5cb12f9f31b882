package org.llmnpu.sw.lower;

/**
 * The order a prefill's commands go in ({@link DecoderLowering#order}, {@link PhaseCostModel#order}): one value for the
 * flags that used to be separate setters on both. Every order gives the same results bit for bit; inside a block the
 * commands and their order are the same (but for the X copies a {@link Weave} adds), only their order across the two
 * blocks in flight and the interleaver's windows differ.
 *
 * @param interleave   each step's commands pass through a {@link BlockInterleaver}: DSP copies and resident runs move
 *                     up beside the streamed GEMMs where no data dependence forbids it
 * @param twoBlocks    (with {@code interleave}) a prefill goes two token blocks at a time over separate buffers
 *                     ({@link BlockLane}), layer by layer, where both blocks' buffers fit and the second block's
 *                     attention batches as many tokens as the first's ({@link LaneBatching}); else one block at a time
 *                     ({@link DecoderLowering#twoBlocksWhyNot})
 * @param skewed       (two blocks in flight) each layer goes skewed: the first block's RMSNorm and QKV GEMM, the
 *                     second's, then the rest of the first block's layer, then the rest of the second's (each reading
 *                     the cache's rows after its QKV GEMM): software pipelining by blocks. With the tiled QKV post
 *                     ({@link DecoderLowering#staticQkv}) each head is the QKV GEMM with its tiles' posts
 * @param staggered    (two blocks in flight; in place of {@code skewed}) the pair goes staggered by half a layer
 *                     ({@link BlockLane#staggered}): per layer L the first block's attention up to its O GEMM, the
 *                     second block's head (vectors, RMSNorm, QKV GEMM), the first block's feed-forward, the second
 *                     block's attention, the first block's head of L + 1, the second block's feed-forward
 * @param acrossLayers (two blocks in flight) a layer's end does not end the interleaver's window: its boundaries are
 *                     markers of no footprint ({@link BlockInterleaver#acrossLayers})
 * @param weave        (with {@code staggered}) which of the other block's GEMM streams is woven into a block's
 *                     attention, a piece of N tiles after each head group's batched scores GEMMs ({@link Weave}):
 *                     {@link Weave#GATED} measured faster (sw-stack README), {@link Weave#QKV} slower
 */
public record PrefillOrder(boolean interleave, boolean twoBlocks, boolean skewed, boolean staggered,
                           boolean acrossLayers, Weave weave) {
  /** Which GEMM stream of the other block is woven into a block's attention (with {@code staggered}). */
  public enum Weave {
    /** None: each block's attention alone. */
    NONE,
    /**
     * The second block's QKV GEMM ({@link TileWeave}): its vectors and RMSNorms before the first block's attention,
     * its QKV N tiles in pieces, one after each head group's batched scores GEMMs (before that group's SoftMax), the
     * tiles left after the attention; a piece's first tile copies its X again. Not with the tiled QKV post.
     * Measured slower on the 7B layer (sw-stack README, "Woven, measured and not kept").
     */
    QKV,
    /**
     * The gated W1/W3 GEMMs ({@code gemm ppm=1 gate=1}, {@link FeedForwardLowering#gatedTiles}) of the feed-forward
     * before an attention in the staggered order woven into it: the first block's of layer L into the second block's
     * attention of L, the second block's of L into the first block's attention of L + 1 (the last layer's not woven).
     * The feed-forward's residuals, RMSNorms and SiLU table and its first {@link TileWeave#gatedLead} N tiles (W1's,
     * then W3's) go where the staggered order has them (beside the other block's QKV post), the other tiles and then
     * W2's N tiles ({@link GatedWeave}) in pieces, one after each head group's batched scores GEMMs of that attention
     * (beside its SoftMax), the tiles left and the residuals after it (before that block's next head, which reads the
     * residuals); a piece's first tile copies X again. Only where the feed-forward is gated (at full, the PPM's gate
     * operand and its records); else staggered. The feed-forward's residual and RMSNorm pairs and its W2 residuals go
     * as runs kept in the program memory ({@code BlockLane#pins}), so that a layer's first run of each (a new program:
     * the layer's static scales are baked in) goes beside the other block's QKV or O GEMM stream.
     */
    GATED
  }

  /** One block at a time, no interleaver: the lowering's default. */
  public static final PrefillOrder DEFAULT = new PrefillOrder(false, false, false, false, false, Weave.NONE);

  public PrefillOrder {
    if (weave == null) {
      throw new IllegalArgumentException("weave: one of " + java.util.Arrays.toString(Weave.values()) + ", not null");
    }
  }

  /** This order with {@code interleave} as given. */
  public PrefillOrder withInterleave(boolean on) {
    return new PrefillOrder(on, twoBlocks, skewed, staggered, acrossLayers, weave);
  }

  /** This order with {@code twoBlocks} as given. */
  public PrefillOrder withTwoBlocks(boolean on) {
    return new PrefillOrder(interleave, on, skewed, staggered, acrossLayers, weave);
  }

  /** This order with {@code skewed} as given. */
  public PrefillOrder withSkewed(boolean on) {
    return new PrefillOrder(interleave, twoBlocks, on, staggered, acrossLayers, weave);
  }

  /** This order with {@code staggered} as given. */
  public PrefillOrder withStaggered(boolean on) {
    return new PrefillOrder(interleave, twoBlocks, skewed, on, acrossLayers, weave);
  }

  /** This order with {@code acrossLayers} as given. */
  public PrefillOrder withAcrossLayers(boolean on) {
    return new PrefillOrder(interleave, twoBlocks, skewed, staggered, on, weave);
  }

  /** This order with {@code weave} as given. */
  public PrefillOrder withWeave(Weave w) {
    return new PrefillOrder(interleave, twoBlocks, skewed, staggered, acrossLayers, w);
  }

  /** Whether two blocks may go in flight (interleaved, two blocks asked for). */
  public boolean twoBlocksAsked() {
    return interleave && twoBlocks;
  }
}
