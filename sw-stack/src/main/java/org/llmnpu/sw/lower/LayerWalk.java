package org.llmnpu.sw.lower;

import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.model.ModelConfig;

/**
 * A layer of one token block in {@link PhaseCostModel}'s extrapolated walk, in the lowering's order
 * ({@link BlockLane#layer}): the layer's vectors into the DSP, the cache's rows in, every token's RMSNorm and
 * quantization, the QKV GEMM, the QKV post, the attention, the O GEMM and the feed-forward ({@link FeedForwardWalk});
 * split as {@link BlockLane#layerHead} and {@link BlockLane#layerTail} for a skewed pair of blocks; and the LM head.
 */
abstract class LayerWalk extends FeedForwardWalk {
  /** Which stream the staggered layers weave into a block's attention ({@link PrefillOrder#weave}). */
  PrefillOrder.Weave weaving = PrefillOrder.Weave.NONE;

  LayerWalk(ModelConfig c, MachineParams p, int maxContext, int blockMax, boolean extrapolate, int weightBits,
            int weightGroup, int sparsity, int mxFormat, Fusion fusion) {
    super(c, p, maxContext, blockMax, extrapolate, weightBits, weightGroup, sparsity, mxFormat, fusion);
  }

  /** A layer of a block; {@code starts}: a new window of the interleaver (not the second block in flight's layer). */
  final void layer(int n, int pos, boolean firstLayer, boolean starts) {
    vectorsIn(starts);
    cacheIn(n, pos);
    qkv(n, pos, false);
    afterQkv(n, pos, firstLayer);
  }

  /** The layer's vectors, RMSNorm and QKV GEMM (with the tiled post, its posts too; {@link BlockLane#layerHead}). */
  final void layerHead(int n, int pos, boolean starts) {
    vectorsIn(starts);
    qkv(n, pos, keysAfterCache(pos));
  }

  /** The rest of the layer after {@link #layerHead} ({@link BlockLane#layerTail}). */
  final void layerTail(int n, int pos, boolean firstLayer) {
    layerTailAttention(n, pos, firstLayer);
    feedForwardHalf(n);
  }

  /**
   * The attention part of {@link #layerTail}, up to the O GEMM and, unfused, the residual
   * ({@link BlockLane#layerTailAttention}).
   */
  final void layerTailAttention(int n, int pos, boolean firstLayer) {
    operator("layer vectors, KV cache");
    cacheIn(n, pos);
    tiledKeysInTail(n, pos);
    attentionHalf(n, pos, firstLayer);
  }

  /**
   * Layer {@code l} of {@code layers} of two blocks staggered by half a layer (as {@link BlockLane#staggered}): the
   * first block's attention, the second's head, the first's feed-forward, the second's attention, the first's head of
   * layer l + 1 (its constants that layer's), the second's feed-forward; the first block's head of layer 0 first.
   */
  final void staggeredLayer(int l, int layers, int n, int n2, int pos) {
    boolean gated = weaving == PrefillOrder.Weave.GATED && weavesGated();
    // as BlockLane#pins
    pinPairs = gated;
    pinResiduals = gated;
    deferStores = gated;
    if (l == 0) {
      layerHead(n, pos, true);
      pendingGated = null;
    } else {
      layerStarts();
    }
    if (pendingGated != null) {
      // the second block's feed-forward of the layer before, woven into the first block's attention
      finishGated(pendingGated, 1, n2, l - 1, 0, n, pos, l == 0);
      pendingGated = null;
      lane(1);
      layerHead(n2, pos + n, false);
      lane(0);
    } else if (weaving == PrefillOrder.Weave.QKV && !qkvPostTiled()) {
      wovenAttention(n, n2, pos, l == 0);
    } else {
      layerTailAttention(n, pos, l == 0);
      lane(1);
      layerHead(n2, pos + n, false);
      lane(0);
    }
    if (gated) {
      finishGated(beginGated(n, weaveSlots(n2)), 0, n, l, 1, n2, pos + n, l == 0);
    } else {
      feedForwardHalf(n);
      lane(1);
      layerTailAttention(n2, pos + n, l == 0);
      lane(0);
    }
    if (l + 1 < layers) {
      walkLayer = l + 1;
      layerHead(n, pos, false);
      walkLayer = l;
    }
    lane(1);
    if (gated && l + 1 < layers) {
      pendingGated = beginGated(n2, weaveSlots(n));
    } else {
      storesDeferred();
      feedForwardHalf(n2);
    }
    lane(0);
    pinPairs = false;
    pinResiduals = false;
    deferStores = false;
  }

  /**
   * As {@code BlockLane#wovenAttention} ({@link DecoderLowering#woven}): the second block's vectors and RMSNorms, the
   * first block's attention with a piece of the second's QKV N tiles after each head group's scores GEMMs
   * ({@link TileWeave}), the tiles left after it.
   */
  private void wovenAttention(int n, int n2, int pos, boolean firstLayer) {
    lane(1);
    vectorsIn(false);
    qkvNorms(n2);
    TileWeave pieces = new TileWeave(streamTiles(qkvN), weaveSlots(n));
    lane(0);
    weave = () -> {
      int[] tiles = pieces.next();
      if (tiles[0] < tiles[1]) {
        String before = operator();
        lane(1);
        operator("QKV GEMM");
        gemmTiles(n2, c.dim(), qkvN, tiles[0], tiles[1]);
        lane(0);
        operator(before);
      }
    };
    layerTailAttention(n, pos, firstLayer);
    weave = null;
    int[] rest = pieces.rest();
    lane(1);
    operator("QKV GEMM");
    gemmTiles(n2, c.dim(), qkvN, rest[0], rest[1]);
    lane(0);
  }

  /** The second block's gated feed-forward begun at the end of the layer before ({@code BlockLane#staggered}); null. */
  private TileWeave pendingGated;
  /**
   * As {@link GatedWeave#begin}: the feed-forward's RMSNorms and SiLU table, then the lead W1/W3 tiles; the rest of the
   * W1/W3 tiles and W2's cut for {@code slots} head groups.
   */
  private TileWeave beginGated(int n, int slots) {
    quantSite = StaticScales.Site.W13_IN;
    operator("residual, FFN RMSNorm");
    int count = feedForwardGatedNorms(n);
    // as GatedWeave#begin: the lane's K/V row stores held since its attention
    storesDeferred();
    gatedCount = count;
    TileWeave pieces = new TileWeave(count + GatedWeave.w2Tiles(p, c, bits), slots, TileWeave.gatedLead(count));
    int[] tiles = pieces.lead();
    gatedTiles(n, tiles[0], tiles[1]);
    return pieces;
  }

  /**
   * As {@code BlockLane#finishGated}: lane {@code attLane}'s attention ({@code attN} tokens at {@code attPos}) with a
   * piece of lane {@code ffnLane}'s W1/W3 and W2 tiles (its {@code ffnN} tokens, layer {@code ffnLayer}) after each
   * head group's scores GEMMs, then its tiles left and residuals; ends in lane 0.
   */
  private void finishGated(TileWeave pieces, int ffnLane, int ffnN, int ffnLayer, int attLane, int attN, int attPos,
                           boolean firstLayer) {
    weave = () -> {
      int[] tiles = pieces.next();
      if (tiles[0] < tiles[1]) {
        String before = operator();
        lane(ffnLane);
        ffnTiles(ffnN, tiles);
        lane(attLane);
        operator(before);
      }
    };
    lane(attLane);
    layerTailAttention(attN, attPos, firstLayer);
    weave = null;
    lane(ffnLane);
    int layer = walkLayer;
    walkLayer = ffnLayer;
    ffnTiles(ffnN, pieces.rest());
    // as GatedWeave#residuals
    gatedResiduals(ffnN);
    walkLayer = layer;
    lane(0);
  }

  /** The W1/W3 tiles of the gated feed-forward begun last ({@link #beginGated}; the same for both lanes). */
  private int gatedCount;

  /** As {@link GatedWeave#tiles}: the stream's tiles {@code [from, to)} ({@link GatedWeave#split}). */
  private void ffnTiles(int n, int[] tiles) {
    int[] split = GatedWeave.split(gatedCount, tiles[0], tiles[1]);
    if (split[0] < split[1]) {
      operator("W1/W3 GEMM");
      gatedTiles(n, split[0], split[1]);
    }
    if (split[2] < split[3]) {
      operator("W2 GEMM");
      gemmTiles(n, c.hiddenDim(), c.dim(), split[2], split[3]);
    }
  }

  /** The layer's vectors into the DSP; {@code starts}: a new window of the interleaver. */
  final void vectorsIn(boolean starts) {
    if (starts) {
      layerStarts();
    }
    operator("layer vectors, KV cache");
    if (groupScaled) {
      load(1, 2L * 2 * pad8(c.dim()));
      load(1, 2L * (layerVectorElems - channelVectors));
    } else {
      load(1, 2L * groupVectorsEnd);
    }
    dspIn(1, c.dim(), FP16);
    dspIn(1, c.dim(), FP16);
    int[][] scaleVectors = {{c.dim(), qkvN}, {oK, c.dim()}, {c.dim(), c.hiddenDim()}, {c.dim(), c.hiddenDim()},
        {c.hiddenDim(), c.dim()}};
    for (int v = 0; v < scaleVectors.length; v++) {
      int[] kn = scaleVectors[v];
      if (v == 2 && epilogue) {
        continue; // W1's scales are in the gate's ppmcfg records
      }
      for (int g = 0; g < scaleVectors(kn[0]); g++) {
        dspIn(1, kn[1], FP16);
      }
    }
  }

  /** The cache's rows {@code [0, pos)} into the scratchpad ({@link AttentionLowering}). */
  final void cacheIn(int n, int pos) {
    if (pos > 0) {
      cacheLoad(pos, kvBytes);
      cacheLoad(pos, kvBytes);
    }
    keyLinesIn(n, pos);
  }

  /** {@code keysLater}: the tiled post leaves Kᵀ's lines to the tail ({@link #tiledKeysInTail}). */
  final void qkv(int n, int pos, boolean keysLater) {
    qkvNorms(n);
    qkvGemms(n, pos, keysLater);
  }

  /** Every token's RMSNorm and quantization into the QKV GEMM's X ({@link #qkv} before its GEMM). */
  private void qkvNorms(int n) {
    quantSite = StaticScales.Site.QKV_IN;
    operator("attention RMSNorm");
    for (int t = 0; t < n; t++) {
      if (feedForwardPairs() && t + 1 < n) {
        normQuantizePair();
        t++;
      } else {
        normQuantize();
      }
    }
  }

  final void afterQkv(int n, int pos, boolean firstLayer) {
    attentionHalf(n, pos, firstLayer);
    feedForwardHalf(n);
  }

  /** After the QKV GEMM: the QKV post, the attention, the O GEMM and (unfused) its residual. */
  private void attentionHalf(int n, int pos, boolean firstLayer) {
    quantSite = StaticScales.Site.W13_IN;
    qkvRopeKvOut(n, pos);
    attend(n, pos, firstLayer);
    operator("O GEMM");
    gemms(n, oK, c.dim());
    operator("residual, FFN RMSNorm");
    if (!chainRuns) {
      for (int t = 0; t < n; t++) {
        residual(oK);
      }
    }
  }

  /**
   * The feed-forward ({@link BlockLane#layerTailFeedForward}): at full the residual with its RMSNorm, the W1/W3 and W2
   * GEMMs.
   */
  final void feedForwardHalf(int n) {
    quantSite = StaticScales.Site.W13_IN;
    operator("residual, FFN RMSNorm");
    feedForward(n);
  }

  final void lmHead(int count) {
    quantSite = null;
    load(1, 2L * (pad8(c.dim()) + c.vocabSize()));
    dspIn(1, c.dim(), FP16);
    dspIn(1, c.vocabSize(), FP16);
    for (int i = 0; i < count; i++) {
      normQuantize();
    }
    gemms(count, c.dim(), c.vocabSize(), 8, split(c.dim()), false);
    for (int i = 0; i < count; i++) {
      partialsIn(split(c.dim()), 1, c.vocabSize(), -1);
      run("logits scale", () -> r.scale(0, c.vocabSize(), 1, 2, null, -1, 3));
      dspOut(1, c.vocabSize(), FP16);
      store(1, 2L * c.vocabSize());
    }
  }
}
