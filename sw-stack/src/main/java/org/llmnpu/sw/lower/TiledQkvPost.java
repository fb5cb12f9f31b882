package org.llmnpu.sw.lower;

import org.llmnpu.isa.Command;
import org.llmnpu.isa.dsp.DspKernel;

/**
 * The QKV GEMM tile by tile with each tile's post right after the next tile's GEMM, so that the post can go beside
 * that GEMM's W stream: for a model whose Wqkv columns are ordered per tile ({@link LoweredModel#orderQkvByTiles},
 * {@link QkvTiles}) with static q/k/v scales ({@link DecoderLowering#staticQkv}) at {@code --fusion full}.
 *
 * <p>Order: the block's cos/sin rows in (one load), the QKV weight staged, then GEMM 0, and for j = 1…T−1 GEMM j
 * followed by tile j−1's post; tile T−1's post last. Tile j's results go to Y buffer {@code j mod 2} ({@link #buffer}).
 * A tile's post, per token t of the block:
 * <ul>
 *   <li>the tile's INT32 results of token t in (a {@code dspin}, K chunks summed as {@link LoweringEmitter#resultIn});
 *   <li>if it holds q or k heads, token t's cos and sin of the tile's widest segment's pairs (one {@code dspin} of two
 *       rows: every head's RoPE angles are the same);
 *   <li>dequantized ({@code (acc·x scale)·channel scale}, the channel scales in the tile's column order);
 *   <li>per segment: q and k RoPE'd (half-split) into their places of the flat q and k rows, and their evens and
 *       odds quantized with the static scale into token t's q codes (which stay in the DSP for the attention) or the K
 *       codes; v quantized into the V codes;
 *   <li>the tile's K codes (flat, or head-major through {@link KeyRows#out(long, int, int)}) and V
 *       codes out to token t's cache rows in the scratchpad.
 * </ul>
 * After the tile that completes K, every token's Kᵀ lines ({@link TransposedKeys#scatter}); after the last tile, every
 * token's K and V scale rows. Each value is computed with the same DSP operations on the same operands as the per-token
 * post's static program ({@link AttentionLowering}): the same codes and logits. Cycles: the commands above, priced as
 * every other command by the cost model.
 */
final class TiledQkvPost {
  private final LoweringEmitter e;
  private final LoweringLayout l;
  private final BatchedAttention batched;
  private final QkvTiles tiles;
  private final int sRope;
  private final int ropeRowBytes;

  /** The block-wide post ({@link BlockQkvPost}; used where its {@link BlockQkvPost#whyNot} is null), or none. */
  private final BlockQkvPost blockPost;

  TiledQkvPost(LoweringEmitter emitter, BatchedAttention batched, int sRope, int ropeRowBytes) {
    this.e = emitter;
    this.l = emitter.l;
    this.batched = batched;
    this.tiles = l.m.qkvTiles;
    this.sRope = sRope;
    this.ropeRowBytes = ropeRowBytes;
    this.blockPost = batched == null ? null
        : new BlockQkvPost(emitter, tiles, batched.headMajorKeys, sRope, ropeRowBytes);
  }

  /**
   * Why the tiles' posts go token by token ({@link #post}) and not for a group of the block's tokens at once
   * ({@link BlockQkvPost}), or null.
   */
  String blockWhyNot() {
    if (blockPost == null) {
      return "it needs --fusion full";
    }
    if (blockPost.whyNot != null) {
      return blockPost.whyNot;
    }
    return e.inputScale > 0 ? null : "the QKV input's scale is each token's own (no static input scale)";
  }

  /** The block-wide post where its shape allows ({@link BlockQkvPost#whyNot} null), else null. */
  BlockQkvPost blockPost() {
    return blockPost == null || blockPost.whyNot != null ? null : blockPost;
  }

  /** Why this lowering cannot emit the tiled post for the model's per-tile Wqkv, or null. */
  String whyNot() {
    if (batched == null) {
      return "it needs --fusion full";
    }
    if (!e.staticQkv || e.epilogue == null) {
      return "it needs static q/k/v scales (DecoderLowering#staticQkv, where the PPM epilogues apply)";
    }
    if (e.streamTile() != tiles.tile()) {
      return "the QKV GEMM's tile is " + e.streamTile() + " columns, the weight's order is for " + tiles.tile();
    }
    int line = l.line;
    if (2L * l.blockMax * 4 * tiles.tile() > l.yChunkBytes) {
      return "two tiles' results of a block do not fit a K chunk's Y region";
    }
    if (tiles.tile() % l.lanes != 0 || 2 * l.nq % line != 0) {
      return "a tile (" + tiles.tile() + ") must be whole DSP rows and 2·nq (" + 2 * l.nq + ") whole lines of "
          + line + " bytes";
    }
    for (int j = 0; j < tiles.count(); j++) {
      for (QkvTiles.Segment s : tiles.segments(j)) {
        long at = s.part() == QkvTiles.V ? (long) s.head() * l.c.headDim()
            : batched.headMajorKeys ? (long) s.head() * l.c.headDim() : (long) s.head() * l.half;
        if (s.part() != QkvTiles.Q && (at % line != 0 || !batched.headMajorKeys && l.nk % line != 0)) {
          return "tile " + j + "'s " + "qkv".charAt(s.part()) + " codes do not start on a line of the cache row";
        }
      }
    }
    return null;
  }

  /**
   * The block's QKV GEMM and post for layer {@code layer}, tokens {@code 0..n-1} at positions {@code pos..};
   * {@code keysLater}: Kᵀ's lines are left to {@link #keyLines} (a skewed head whose first line holds earlier slots);
   * {@code ropeIn}: the region holds these tokens' cos/sin rows already (a block's later layers of a step).
   */
  void emit(int layer, int n, int pos, boolean keysLater, boolean ropeIn) {
    String why = whyNot();
    if (why != null) {
      throw new IllegalStateException("the model's Wqkv is ordered per QKV tile, but the tiled QKV post cannot be"
          + " emitted: " + why);
    }
    var b = e.b;
    var m = l.m;
    if (!ropeIn) {
      b.load(m.rope + (long) pos * m.ropeStride, m.ropeStride, sRope, ropeRowBytes, 4L * l.nq, n);
    }
    e.weight(m.wQkv[layer], l.c.dim(), m.qkvN);
    if (e.channelScales(0) < 0) {
      throw new IllegalStateException("the tiled QKV post needs per-channel weight scales, not group-scaled ones");
    }
    double[] s = {e.epilogue.of(StaticScales.Site.Q, layer), e.epilogue.of(StaticScales.Site.K, layer),
        e.epilogue.of(StaticScales.Site.V, layer)};
    int lastKeys = -1;
    for (int j = 0; j < tiles.count(); j++) {
      lastKeys = tiles.holdsKeys(j) ? j : lastKeys;
    }
    boolean wide = blockWhyNot() == null;
    if (wide) {
      blockPost.layerStart();
    }
    for (int j = 0; j <= tiles.count(); j++) {
      if (j < tiles.count()) {
        int from = j * tiles.tile();
        e.gemmColumns(n, l.c.dim(), m.qkvN, from, Math.min(m.qkvN, from + tiles.tile()), l.sXS, l.xsStride,
            l.sY + buffer(j), 4 * tiles.tile());
      }
      if (j > 0 && wide) {
        blockPost.post(j - 1, n, pos, l.sY + buffer(j - 1), s);
      } else if (j > 0) {
        post(j - 1, n, pos, s);
      }
      if (j > 0) {
        if (j - 1 == lastKeys && !keysLater) {
          // the block's K rows are complete: its lines of Kᵀ
          keyLines(n, pos);
        }
      }
    }
    int kvPad = LoweredModel.roundUp(l.c.kvDim(), l.line);
    if (wide) {
      // the K/V scale rows went out with their tiles' posts
      return;
    }
    for (int t = 0; t < n; t++) {
      long slot = pos + t;
      b.dspOut(l.sKC + slot * m.kvBytes + kvPad, l.line, 1, 1, l.rDK, Command.FMT_FP16);
      b.dspOut(l.sVC + slot * m.kvBytes + kvPad, l.line, 1, 1, l.rDV, Command.FMT_FP16);
    }
  }

  /** Every token's lines of Kᵀ (where the lowering keeps Kᵀ), from the K rows in the scratchpad. */
  void keyLines(int n, int pos) {
    if (batched.keyScores != null) {
      for (int t = 0; t < n; t++) {
        batched.keyScores.scatter(t, n, pos);
      }
    }
  }

  /**
   * Where in each K chunk's Y region tile j's results go: two buffers of the block's rows ({@code 4·tile} bytes
   * each), alternating, so that tile j's {@code dspin}s touch none of tile j+1's results and go beside its GEMM.
   */
  private long buffer(int j) {
    return j % 2 * (long) l.blockMax * 4 * tiles.tile();
  }

  /** Tile j's post for every token of the block (class comment). */
  private void post(int j, int n, int pos, double[] s) {
    var b = e.b;
    var r = l.r;
    int lanes = l.lanes;
    int col0 = j * tiles.tile();
    int width = Math.min(tiles.tile(), l.m.qkvN - col0);
    int pairs = 0;
    for (QkvTiles.Segment seg : tiles.segments(j)) {
      pairs = seg.part() == QkvTiles.V ? pairs : Math.max(pairs, seg.heads() * l.half);
    }
    int sin = l.rCs + r.rows(pairs);
    for (int t = 0; t < n; t++) {
      long slot = pos + t;
      e.resultIn(buffer(j) + 4L * t * tiles.tile(), width, l.rAcc, l.rWsQkv);
      if (pairs > 0) {
        b.dspIn(sRope + (long) t * ropeRowBytes, 2L * l.nq, pairs, 2, l.rCs, Command.FMT_FP16, 0);
      }
      e.run(r.scale(l.rAcc, width, e.xScaleRow(t), l.rWsQkv + col0 / lanes, null, -1, l.rQkv));
      for (QkvTiles.Segment seg : tiles.segments(j)) {
        int in = l.rQkv + seg.offset() / lanes;
        int len = seg.heads() * l.half;
        if (seg.part() == QkvTiles.V) {
          int v0 = seg.head() * l.c.headDim() / lanes;
          e.run(r.quantizeStatic(in, 2 * len, -1, LoweringEmitter.half(1 / s[2]), l.rVQ + v0, l.rDV,
              LoweringEmitter.half(s[2])));
          b.dspOut(l.sVC + slot * l.m.kvBytes + (long) v0 * lanes, l.line, 2 * len, 1, l.rVQ + v0, Command.FMT_INT8);
          continue;
        }
        boolean q = seg.part() == QkvTiles.Q;
        int rows = r.rows(q ? l.nq : l.nk);
        int rope = q ? l.rQ : l.rK;
        int head = seg.head() * l.half / lanes;
        e.run(r.kernel(DspKernel.ROPE, 2 * len, new int[] {in, in + len / lanes, l.rCs, sin},
            new int[] {rope + head, rope + rows + head}));
        int codes = q ? l.rQQ + t * 2 * rows : l.rKQ;
        int scaleRow = q ? l.rDQ + t : l.rDK;
        short k = LoweringEmitter.half(1 / s[seg.part()]);
        short d = LoweringEmitter.half(s[seg.part()]);
        e.run(r.quantizeStatic(rope + head, len, -1, k, codes + head, scaleRow, d));
        e.run(r.quantizeStatic(rope + rows + head, len, -1, k, codes + rows + head, scaleRow, d));
        if (!q) {
          keysOut(l.sKC + slot * l.m.kvBytes, seg, len, rows, head);
        }
      }
    }
  }

  /** Segment {@code seg}'s K codes of a token to its cache row at {@code row}: flat or head-major. */
  private void keysOut(long row, QkvTiles.Segment seg, int len, int rows, int head) {
    if (batched.headMajorKeys) {
      batched.keys.out(row, seg.head(), seg.heads());
      return;
    }
    e.b.dspOut(row + (long) head * l.lanes, l.line, len, 1, l.rKQ + head, Command.FMT_INT8);
    e.b.dspOut(row + l.nk + (long) head * l.lanes, l.line, len, 1, l.rKQ + rows + head, Command.FMT_INT8);
  }
}
