package org.llmnpu.sw.lower;

/**
 * The weave hooks of a block's attention ({@link PrefillOrder.Weave}, {@link TileWeave}): the QKV head split so that
 * another block's attention can carry its GEMM tiles ({@link #headNorms}, {@link #qkvTiles}), and the slots where the
 * other block's pieces run inside this attention ({@link #slots}, {@link #pieces}; run by {@link Pieces#slot} after each
 * head group's batched scores GEMMs and by {@link Pieces#batch} after each batch's P·V GEMMs). Only the order of
 * commands changes; their values are the same ({@code WovenBlocksTest}).
 */
final class AttentionWeave {
  private final LoweringEmitter e;
  private final LoweringLayout l;
  private final AttentionLowering attention;
  /** The batched core ({@code --fusion full}), else null: no slots. */
  private final BatchedAttention batched;

  AttentionWeave(LoweringEmitter emitter, AttentionLowering attention, BatchedAttention batched) {
    this.e = emitter;
    this.l = emitter.l;
    this.attention = attention;
    this.batched = batched;
  }

  /**
   * The woven pieces of an attention: {@link #slot} runs the next (the caller's {@link TileWeave} cuts them); none
   * while unset.
   */
  static final class Pieces {
    private Runnable pieces;

    /** The pieces to run at each slot; null: none. */
    void set(Runnable pieces) {
      this.pieces = pieces;
    }

    /** A head group's scores GEMMs are out: the woven piece, if any. */
    void slot() {
      if (pieces != null) {
        pieces.run();
      }
    }

    /**
     * A batch's P·V GEMMs ({@code valueProducts}), then its outputs slot, then its outputs' runs ({@code outputs}):
     * the woven piece goes beside the outputs' DSP runs ({@link TileWeave#slots} counts it).
     */
    void batch(Runnable valueProducts, Runnable outputs) {
      valueProducts.run();
      slot();
      outputs.run();
    }
  }

  /** Whether this block's head can be woven ({@link DecoderLowering#woven}): its QKV GEMM without the tiled post. */
  boolean weavesHead() {
    return attention.tiledPost() == null;
  }

  /**
   * {@link AttentionLowering#emitHead} up to its QKV GEMM, woven: every token's RMSNorm and quantization, the QKV
   * weight staged; returns the GEMM's N tiles for {@link #qkvTiles}.
   */
  int headNorms(int layer, int n) {
    attention.norms(n);
    e.weight(l.m.wQkv[layer], l.c.dim(), l.m.qkvN);
    return (l.m.qkvN + e.streamTile() - 1) / e.streamTile();
  }

  /** The QKV GEMM's N tiles {@code [from, to)} after {@link #headNorms} (all of them: as the head's). */
  void qkvTiles(int n, int from, int to) {
    int tile = e.streamTile();
    int c0 = from * tile;
    int c1 = Math.min(to * tile, l.m.qkvN);
    if (c0 < c1) {
      e.gemmColumns(n, l.c.dim(), l.m.qkvN, c0, c1, l.sXS, l.xsStride, l.sY + 4L * c0, l.yStride);
    }
  }

  /** Head groups of batched scores this block's attention of {@code n} tokens has ({@link TileWeave#slots}). */
  int slots(int n) {
    if (batched == null) {
      return 0;
    }
    int[] bt = batched.batching();
    return TileWeave.slots(n, bt[0], bt[1], l.c.heads(), batched.headGroup);
  }

  /** The pieces to run after each head group's scores GEMMs ({@link Pieces}); null: none. */
  void pieces(Runnable pieces) {
    if (batched != null) {
      batched.weave.set(pieces);
    }
  }
}
