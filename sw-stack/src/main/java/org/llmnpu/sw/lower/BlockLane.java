package org.llmnpu.sw.lower;

import java.util.function.ToLongFunction;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * One token block's buffers ({@link LoweringLayout}) and the emitters that write its commands: a block's embedding
 * rows, each layer (its vectors, attention, feed-forward) and its LM head, as {@link DecoderLowering} emits them. The
 * lowering holds one lane, and a second one over separate buffers when two blocks are in flight ({@link #second}),
 * so that one block's commands never touch the other's scratchpad bytes or DSP rows and {@link BlockInterleaver} may
 * move them beside each other's streamed GEMMs.
 */
final class BlockLane {
  final LoweringLayout l;
  final LoweringEmitter e;
  final AttentionLowering attention;
  private final FeedForwardLowering feedForward;
  private final LmHeadLowering lmHead;

  BlockLane(LoweringLayout l, ToLongFunction<DspProgram> pool, Fusion fusion) {
    this.l = l;
    this.e = new LoweringEmitter(l, pool, fusion);
    this.attention = new AttentionLowering(e, fusion);
    this.feedForward = new FeedForwardLowering(e, fusion == Fusion.FULL);
    this.lmHead = new LmHeadLowering(e);
  }

  /**
   * A lane over buffers placed after every region of this one (its emitters' too); the layout's error naming the
   * resource when the scratchpad or the DSP's rows do not hold both.
   */
  BlockLane second(ToLongFunction<DspProgram> pool, Fusion fusion) {
    BlockLane second = new BlockLane(new LoweringLayout(l), pool, fusion);
    second.e.staticQkv = e.staticQkv;
    return second;
  }

  /** The lane's attention batching ({@link BatchedAttention#batching}): {tokens a batch, tokens a scores GEMM}. */
  int[] attentionBatching() {
    return attention.batching();
  }

  /** The step's constant buffers: the zero query rows and the zero vector (scratchpad and DSP). */
  void stepStart(CommandStream b) {
    LoweredModel m = l.m;
    e.b = b;
    b.load(m.zeros, 0, l.sWQ, l.line, l.line, (long) l.c.heads() * l.c.kvDim());
    b.load(m.zeros, 0, l.sZERO, l.line, l.line, l.zeroBytes / l.line);
    b.dspIn(l.sZERO, 0, l.zeroBytes / 2, 1, l.rO, Command.FMT_FP16, 0);
  }

  /** The step is over. */
  void stepEnd() {
    e.b = null;
  }

  /** A block of {@code tokens}: their embedding rows. */
  void embed(int[] tokens) {
    LoweredModel m = l.m;
    e.norms.blockStart(tokens.length);
    for (int t = 0; t < tokens.length; t++) {
      e.b.load(m.embedding + (long) tokens[t] * m.embeddingStride, l.line, l.sXR + (long) t * l.xrStride, l.line,
          2L * l.c.dim(), 1);
    }
  }

  /** Layer {@code layer} of the block of {@code n} tokens at positions {@code pos…}. */
  void layer(int layer, int n, int pos) {
    vectorsIn(layer);
    e.inputScale = qkvInputScale(layer);
    attention.emit(layer, n, pos);
    e.inputScale = 0;
    feedForward.emit(layer, n);
  }

  /**
   * The head of layer {@code layer} for a skewed pair of blocks ({@link DecoderLowering#skewed}): the layer's vectors,
   * the RMSNorm and the QKV GEMM (with the tiled QKV post, its posts too; {@link AttentionLowering#emitHead}) of the
   * block at positions {@code pos…}; {@link #layerTail} does the rest.
   */
  void layerHead(int layer, int n, int pos) {
    vectorsIn(layer);
    e.inputScale = qkvInputScale(layer);
    attention.emitHead(layer, n, pos);
    e.inputScale = 0;
  }

  /** The rest of layer {@code layer} after {@link #layerHead}: the attention from the cache's rows in, the feed-forward. */
  void layerTail(int layer, int n, int pos) {
    layerTailAttention(layer, n, pos);
    layerTailFeedForward(layer, n);
  }

  /**
   * The attention part of {@link #layerTail}: the cache's rows in, the QKV post where the head left it, the attention,
   * the O GEMM (and, unfused, its residual) ({@link DecoderLowering#staggered}).
   */
  void layerTailAttention(int layer, int n, int pos) {
    e.inputScale = qkvInputScale(layer);
    attention.emitTail(layer, n, pos);
    e.inputScale = 0;
  }

  /** The feed-forward part of {@link #layerTail}: (at full) the residual with the FFN RMSNorm, W1/W3, W2. */
  void layerTailFeedForward(int layer, int n) {
    feedForward.emit(layer, n);
  }

  /**
   * The layers of this block (tokens at {@code pos…}) and {@code second} ({@code pos + n…}) staggered by half a layer
   * ({@link DecoderLowering#staggered}): per layer this block's attention, the second's head, this block's feed-forward,
   * the second's attention, this block's next head, the second's feed-forward, between the layer's markers. With
   * {@code weave} {@link PrefillOrder.Weave#QKV} the second's head is woven into this block's attention
   * ({@link #wovenAttention}); with {@link PrefillOrder.Weave#GATED} this block's gated W1/W3 GEMMs into the second's
   * attention and the second's into this block's attention of the next layer ({@link #beginGated},
   * {@link #finishGated}), the residual and RMSNorm pairs and the W2 residuals pinned in the program memory
   * ({@link #pins}).
   */
  void staggered(BlockLane second, int n, int n2, int pos, int layers, PrefillOrder.Weave weave) {
    var b = e.b;
    boolean gated = weave == PrefillOrder.Weave.GATED && feedForward.weavesGated();
    pins(second, gated);
    GatedWeave pending = null;
    for (int layer = 0; layer < layers; layer++) {
      b.layerStart(layer);
      if (layer == 0) {
        layerHead(0, n, pos);
      }
      if (pending != null) {
        // the second block's feed-forward of the layer before, woven into this block's attention
        finishGated(pending, this, false, layer, n, pos);
        pending = null;
        b.secondLane(true);
        second.layerHead(layer, n2, pos + n);
        b.secondLane(false);
      } else if (weave == PrefillOrder.Weave.QKV && second.attention.weave.weavesHead()) {
        wovenAttention(second, layer, n, n2, pos);
      } else {
        layerTailAttention(layer, n, pos);
        b.secondLane(true);
        second.layerHead(layer, n2, pos + n);
        b.secondLane(false);
      }
      if (gated) {
        finishGated(beginGated(this, false, layer, n, second.attention.weave.slots(n2)), second, true, layer, n2,
            pos + n);
      } else {
        layerTailFeedForward(layer, n);
        b.secondLane(true);
        second.layerTailAttention(layer, n2, pos + n);
        b.secondLane(false);
      }
      if (layer + 1 < layers) {
        layerHead(layer + 1, n, pos);
      }
      b.secondLane(true);
      if (gated && layer + 1 < layers) {
        pending = beginGated(second, true, layer, n2, attention.weave.slots(n));
      } else {
        second.attention.stores.emitHeld();
        second.layerTailFeedForward(layer, n2);
      }
      b.secondLane(false);
      b.layerEnd(layer);
    }
    pins(second, false);
  }

  /**
   * Both lanes' residual and RMSNorm pairs ({@link NormEmitter#pinPairs}) and W2 residuals
   * ({@link NormEmitter#pinResiduals}) kept in the program memory, or not: each layer's first run of these programs
   * (new ones: the layer's static scales are baked in) then loads them by a {@code dspld}, which the interleaver starts
   * before the W stream beside it, where a plain first run waited for the stream's end. The gated order's pairs follow
   * the other block's QKV GEMM, its residuals the other block's O GEMM. On the steady LLaMA-2-7B layer (edge-64 xKeep,
   * {@code WovenLayerBench}): s2_4 9,395,573 → 9,145,568 cycles, int8 14,531,675 → 14,185,805 (the pairs alone:
   * 9,243,053 / 14,314,157).
   */
  private void pins(BlockLane second, boolean on) {
    for (BlockLane lane : new BlockLane[] {this, second}) {
      lane.e.norms.pinPairs = on;
      lane.e.norms.pinResiduals = on;
      lane.attention.stores.defer = on;
    }
  }

  /**
   * This block's attention of layer {@code layer} with the second block's head woven in ({@link TileWeave}): the
   * second's vectors, RMSNorms and staged QKV weight first, then this block's attention with a piece of the second's
   * QKV N tiles after each head group's scores GEMMs, the tiles left after it.
   */
  private void wovenAttention(BlockLane second, int layer, int n, int n2, int pos) {
    var b = e.b;
    b.secondLane(true);
    second.vectorsIn(layer);
    second.e.inputScale = second.qkvInputScale(layer);
    TileWeave weave = new TileWeave(second.attention.weave.headNorms(layer, n2), attention.weave.slots(n));
    b.secondLane(false);
    attention.weave.pieces(() -> {
      int[] tiles = weave.next();
      if (tiles[0] < tiles[1]) {
        b.secondLane(true);
        second.attention.weave.qkvTiles(n2, tiles[0], tiles[1]);
        b.secondLane(false);
      }
    });
    layerTailAttention(layer, n, pos);
    attention.weave.pieces(null);
    int[] rest = weave.rest();
    b.secondLane(true);
    second.attention.weave.qkvTiles(n2, rest[0], rest[1]);
    second.e.inputScale = 0;
    b.secondLane(false);
  }

  /** {@code ffn}'s gated feed-forward of layer {@code layer} begun ({@link GatedWeave#begin}; its lane set before). */
  private static GatedWeave beginGated(BlockLane ffn, boolean second, int layer, int n, int slots) {
    return GatedWeave.begin(ffn, ffn.feedForward, second, layer, n, slots);
  }

  /**
   * {@code att}'s attention of layer {@code layer} ({@code n} tokens at {@code pos}; {@code attSecond}: its lane) with a
   * piece of {@code g}'s W1/W3 and W2 N tiles after each head group's scores GEMMs ({@link GatedWeave}), then {@code
   * g}'s tiles left and residuals; ends in the first lane.
   */
  private void finishGated(GatedWeave g, BlockLane att, boolean attSecond, int layer, int n, int pos) {
    var b = e.b;
    att.attention.weave.pieces(() -> {
      int[] tiles = g.weave.next();
      if (tiles[0] < tiles[1]) {
        b.secondLane(g.second);
        g.tiles(g.lane.feedForward, tiles[0], tiles[1]);
        b.secondLane(attSecond);
      }
    });
    b.secondLane(attSecond);
    att.layerTailAttention(layer, n, pos);
    att.attention.weave.pieces(null);
    b.secondLane(g.second);
    g.rest(g.lane.feedForward);
    g.residuals();
    b.secondLane(false);
  }

  private double qkvInputScale(int layer) {
    return e.epilogue == null ? 0 : e.epilogue.of(StaticScales.Site.QKV_IN, layer);
  }

  /** The layer's norm weights and weight scale vectors into their DSP rows. */
  private void vectorsIn(int layer) {
    LoweredModel m = l.m;
    var b = e.b;
    if (e.groupScaledStream()) {
      // the norms and the channel vectors; the group vectors are the unfused program's
      b.load(m.layerVectors[layer], l.line, l.sVEC, l.line, 2L * m.vQkv, 1);
      b.load(m.layerVectors[layer] + 2L * m.vQkvC, l.line, l.sVEC + 2L * m.vQkvC, l.line,
          2L * (m.layerVectorElems - m.vQkvC), 1);
    } else {
      b.load(m.layerVectors[layer], l.line, l.sVEC, l.line, 2L * m.groupVectorElems, 1);
    }
    e.vecIn(m.vG1, l.c.dim(), l.rG1);
    e.vecIn(m.vG2, l.c.dim(), l.rG2);
    scalesIn(m.vQkv, m.vQkvC, l.c.dim(), m.qkvN, l.rWsQkv);
    scalesIn(m.vO, m.vOC, m.oK, l.c.dim(), l.rWsO);
    if (e.epilogue == null) {
      // through the PPM the gate's weight scales are in its ppmcfg records
      scalesIn(m.vW1, m.vW1C, l.c.dim(), l.c.hiddenDim(), l.rWs1);
    }
    scalesIn(m.vW3, m.vW3C, l.c.dim(), l.c.hiddenDim(), l.rWs3);
    scalesIn(m.vW2, m.vW2C, l.c.hiddenDim(), l.c.dim(), l.rWs2);
  }

  /** The block's LM head: logits of token t to row {@code logitRow[t]} where {@code want[t]}. */
  void head(int n, boolean[] want, int[] logitRow) {
    e.inputScale = e.epilogue == null ? 0 : e.epilogue.lmIn();
    lmHead.emit(n, want, logitRow);
    e.inputScale = 0;
  }

  /**
   * A K×N block weight's scale vectors (one, or one per group) to DSP rows from {@code row}, a group a row block; with
   * group-scaled streamed weights its per-channel vector at {@code channelOffset}.
   */
  private void scalesIn(int offset, int channelOffset, int k, int n, int row) {
    if (e.groupScaledStream()) {
      e.vecIn(channelOffset, n, row);
      return;
    }
    for (int g = 0; g < l.m.groups(k); g++) {
      e.vecIn(offset + g * l.m.groupStride(n), n, row + g * l.r.rows(n));
    }
  }
}
