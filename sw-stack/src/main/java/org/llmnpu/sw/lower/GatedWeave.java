package org.llmnpu.sw.lower;

import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.model.ModelConfig;

/**
 * A block's gated feed-forward woven into the other block's attention ({@link PrefillOrder.Weave#GATED},
 * {@link BlockLane#staggered}): its stream is the W1/W3 GEMMs' N tiles (W1's, then W3's; {@link
 * FeedForwardLowering#gatedTiles}) followed by the W2 GEMM's N tiles, {@code count + w2} in all. The first
 * {@link TileWeave#gatedLead} of the W1/W3 tiles go before the attention ({@link #begin}); the rest of the stream, W2's
 * tiles too, is cut in pieces, one after each head group's scores GEMMs ({@link #tiles}); the tiles left and the
 * residuals after the attention ({@link #rest}, {@link #residuals}). W2 reads the hidden codes the W1/W3 tiles' PPM wrote, with no DSP
 * work between them, so its tiles can follow the last W3 tile in any piece; each piece's first tile of a K chunk copies
 * its X again. The walk's pieces are {@link LayerWalk}'s ({@code beginGated}, {@code finishGated}).
 */
final class GatedWeave {
  final BlockLane lane;
  final boolean second;
  final int layer;
  final int n;
  final TileWeave weave;
  /** The W1/W3 tiles; the stream's tiles from here on are W2's. */
  private final int count;
  private boolean w2Staged;
  /** The lane's feed-forward, which emits the W1/W3 tiles and the residuals. */
  private FeedForwardLowering feedForward;

  private GatedWeave(BlockLane lane, boolean second, int layer, int n, int count, int slots) {
    this.lane = lane;
    this.second = second;
    this.layer = layer;
    this.n = n;
    this.count = count;
    this.weave = new TileWeave(count + w2Tiles(lane.l.p, lane.l.c, lane.l.m.bits), slots, TileWeave.gatedLead(count));
  }

  /**
   * {@code lane}'s gated feed-forward of layer {@code layer} begun (its lane set by the caller): the residuals,
   * RMSNorms and SiLU table ({@code feedForward}'s {@link FeedForwardLowering#emitGatedNorms}), then the lead W1/W3
   * tiles; the rest cut for {@code slots} head groups.
   */
  static GatedWeave begin(BlockLane lane, FeedForwardLowering feedForward, boolean second, int layer, int n,
                          int slots) {
    GatedWeave g = new GatedWeave(lane, second, layer, n, feedForward.emitGatedNorms(layer, n), slots);
    g.feedForward = feedForward;
    // the block's K/V row stores held since its attention: after its norms, beside the other block's QKV GEMM
    lane.attention.stores.emitHeld();
    int[] lead = g.weave.lead();
    g.tiles(feedForward, lead[0], lead[1]);
    return g;
  }

  /** W2's N tiles in the stream: its N (dim) in stream tiles ({@link LoweringEmitter#streamTile}). */
  static int w2Tiles(MachineParams p, ModelConfig c, int bits) {
    return (c.dim() + LoweringEmitter.streamTile(p, bits == 4) - 1) / LoweringEmitter.streamTile(p, bits == 4);
  }

  /**
   * The stream's tiles {@code [from, to)} of a gated feed-forward whose W1/W3 GEMMs have {@code count} tiles, as
   * {W1/W3 tiles from, to, W2 tiles from, to} (W2's counted from its first; either range may be empty): the split both
   * {@link #tiles} and the walk ({@code LayerWalk#ffnTiles}) emit.
   */
  static int[] split(int count, int from, int to) {
    return new int[] {from, Math.min(to, count), Math.max(from, count) - count, to - count};
  }

  /** The stream's tiles {@code [from, to)}: W1/W3's through {@code feedForward}, then W2's (its weight staged first). */
  void tiles(FeedForwardLowering feedForward, int from, int to) {
    int[] split = split(count, from, to);
    if (split[0] < split[1]) {
      feedForward.gatedTiles(layer, n, split[0], split[1]);
    }
    if (split[2] < split[3]) {
      LoweringEmitter e = lane.e;
      LoweringLayout l = lane.l;
      int hidden = l.c.hiddenDim();
      int dim = l.c.dim();
      if (!w2Staged) {
        e.weight(l.m.w2[layer], hidden, dim);
        w2Staged = true;
      }
      int tile = e.streamTile();
      int c0 = split[2] * tile;
      int c1 = Math.min(split[3] * tile, dim);
      e.gemmColumns(n, hidden, dim, c0, c1, l.sY + FeedForwardLowering.gatedCodes(l), l.yStride, l.sY + 4L * c0,
          l.yStride);
    }
  }

  /** After the attention: the tiles no piece took ({@link #residuals} follow). */
  void rest(FeedForwardLowering feedForward) {
    int[] rest = weave.rest();
    tiles(feedForward, rest[0], rest[1]);
  }

  /** Each token's residual of W2's results (as the unwoven, {@link FeedForwardLowering#emitGatedResiduals}). */
  void residuals() {
    feedForward.emitGatedResiduals(layer, n);
  }
}
