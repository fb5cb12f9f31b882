package org.llmnpu.sw.lower;

import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.sw.model.ModelConfig;

/**
 * One QKV tile's post for a group of the block's tokens at once ({@link TiledQkvPost}): the tile's INT32 results of
 * {@code g} tokens dequantized, q and k RoPE'd, q, k and v quantized with the static scales by one run each, where
 * {@link TiledQkvPost}'s per-token post runs them once a token.
 *
 * <p><b>Layout.</b> The DSP holds the group's tile <i>row-major by tile row</i>: row ρ of token t (elements
 * {@code ρ·lanes ..} of its results) at DSP row {@code base + ρ·g + t}. A segment's evens, its odds, and the tokens'
 * cos and sin rows are then each one contiguous block of rows, and every step is elementwise over that block: one
 * {@code scale} (dequantize), one RoPE kernel per q/k segment, one {@code quantizeStatic} per segment, each on the same
 * operands with the same operations as the per-token post, in place. Commands, per tile and group:
 * <ul>
 *   <li>results: per tile row ρ a {@code dspin} of g rows × lanes INT32 (Y row stride {@code 4·tile}), per K chunk when
 *       the QKV GEMM is K-split (then one {@code sumPartials});
 *   <li>the channel scales: per tile row a {@code dspin} of g rows × lanes FP16 with scratchpad row stride 0 (row ρ of
 *       the tile's scales replicated to every token);
 *   <li>the group's cos and sin rows (per pair row i, g rows × lanes FP16, token-strided in the RoPE rows), once a
 *       layer;
 *   <li>q codes to each token's rows ({@code rQQ + t·2·qRows}): per segment row a {@code dspout} FP16 (raw) of g rows
 *       into a token-major stage, and per half one strided {@code dspin} of g rows (DSP stride {@code 2·qRows});
 *   <li>K and V codes: per segment row one {@code dspout} INT8 of g rows at the cache's row stride (head-major K with
 *       {@code headDim/2 < lanes}: per row two FP16 {@code dspout}s of half-head chunks, one {@code dspin} back in
 *       head-major order, one INT8 {@code dspout});
 *   <li>after the last K tile (the last tile), the K (V) scale rows of the group's slots: one {@code dspout}.
 * </ul>
 * The q scale rows {@code rDQ + t} and the K/V scale rows are written by the quantization runs ({@code d} broadcast to
 * as many rows as tokens). Its DSP rows are the attention's score rows, which the Kᵀ staging after the last K tile
 * reuses: only V tiles, which need no cos/sin rows, follow it. Cycles: the commands above, priced as every other
 * command by the cost model.
 */
final class BlockQkvPost {
  private final LoweringEmitter e;
  private final LoweringLayout l;
  private final QkvTiles tiles;
  private final boolean headMajorKeys;
  private final int sRope;
  private final int ropeRowBytes;
  /** Why the block-wide post does not apply on this layout, or null. */
  final String whyNot;
  /** Tokens a group (as many as the DSP's free rows hold, at most the block); 0 when {@link #whyNot} is not null. */
  final int groupTokens;
  private final int rA;
  private final int rPart;
  private final int rVec;
  private final int rCos;
  private final int rSin;
  private final int rKS;
  private final int rVS;
  private final int sStage;
  private final KSplit ks;
  /** The first token of the group whose cos/sin rows the DSP holds (−1: none yet this layer). */
  private int cosFor = -1;

  /** The programs' DSP, its lanes, headDim/2, and the rows of the static x scale and of the q scales. */
  private final DspRoutines r;
  private final int lanes;
  private final int half;
  private final int rDX;
  private final int rDQ;

  /** The lowering's post on {@code emitter}'s layout: its rows the attention's score rows, its stage its own. */
  BlockQkvPost(LoweringEmitter emitter, QkvTiles tiles, boolean headMajorKeys, int sRope, int ropeRowBytes) {
    this(emitter, emitter.l.c, emitter.l.p, emitter.l.r, tiles, headMajorKeys, emitter.l.weightSplit(emitter.l.c.dim()),
        emitter.l.blockMax, emitter.l.scoreRows, new int[] {emitter.l.rDX, emitter.l.rDQ, emitter.l.rSc},
        shapeWhyNot(emitter.l.c, emitter.l.p, tiles, headMajorKeys, 2L * emitter.l.m.vQkv),
        emitter.l.p.spadBytes() - (long) emitter.l.spadBytesUsed(), sRope, ropeRowBytes);
  }

  /**
   * The walk's post on a shape the lowering cannot lay out (an extrapolated model): the lowering's groups and programs,
   * on rows {@code rows} = {rDX, rDQ, rSc} of its own; it emits no command.
   */
  BlockQkvPost(ModelConfig c, MachineParams p, DspRoutines r, QkvTiles tiles, boolean headMajorKeys, KSplit ks,
               int blockMax, int scoreRows, int[] rows) {
    this(null, c, p, r, tiles, headMajorKeys, ks, blockMax, scoreRows, rows, shapeWhyNot(c, p, tiles, headMajorKeys, 0),
        Long.MAX_VALUE, -1, 0);
  }

  private BlockQkvPost(LoweringEmitter emitter, ModelConfig c, MachineParams p, DspRoutines r, QkvTiles tiles,
                       boolean headMajorKeys, KSplit ks, int blockMax, int scoreRows, int[] rows, String shapeWhyNot,
                       long spadFree, int sRope, int ropeRowBytes) {
    this.e = emitter;
    this.l = emitter == null ? null : emitter.l;
    this.r = r;
    this.lanes = p.dsp().lanes();
    this.half = c.headDim() / 2;
    this.rDX = rows[0];
    this.rDQ = rows[1];
    this.tiles = tiles;
    this.headMajorKeys = headMajorKeys;
    this.sRope = sRope;
    this.ropeRowBytes = ropeRowBytes;
    this.ks = ks;
    String why = shapeWhyNot;
    int perToken = rowsPerToken(c, p, tiles, ks);
    // the attention's score and probability rows (rSc, rSc2, rP: consecutive, free outside the attention's score runs
    // and the Kᵀ staging after the last K tile, which no RoPE follows), as LoweringLayout#rPair reuses them
    int free = 3 * scoreRows;
    int g = groupTokens(free, perToken, blockMax, lanes);
    if (why == null && g < 1) {
      why = "the DSP's " + free + " score rows hold no token's tile post (" + perToken + " rows a token)";
    }
    long stage = (long) g * stageBytesPerToken(c, p, tiles);
    if (why == null && stage > spadFree) {
      why = "the scratchpad's free " + spadFree + " bytes do not hold its stage of " + stage + " bytes";
    }
    this.whyNot = why;
    this.groupTokens = why == null ? g : 0;
    int tileRows = r.rows(tiles.tile()) * groupTokens;
    int pairRows = pairRows(c, tiles, lanes) * groupTokens;
    int chunks = ks.combined() ? ks.count() : 0;
    int scaleRows = (groupTokens + lanes - 1) / lanes;
    this.rA = rows[2];
    this.rPart = rA + tileRows;
    this.rVec = rPart + chunks * tileRows;
    this.rCos = rVec + tileRows;
    this.rSin = rCos + pairRows;
    this.rKS = rSin + pairRows;
    this.rVS = rKS + scaleRows;
    this.sStage = why == null && emitter != null ? l.spadRegion(stage, "the block-wide QKV post's stage") : -1;
  }

  /**
   * The lowering's post for shape {@code c} on {@code p} ({@code format}: weight bits, group, sparsity, MX format),
   * laid out on one layer (the buffers do not depend on the layer count, and extrapolated models' images exceed the
   * NPU's 32-bit memory), or null where Wqkv is not ordered per tile or the post does not apply;
   * {@link IllegalArgumentException} where the lowering cannot lay the model out.
   */
  static BlockQkvPost ofLayout(ModelConfig c, MachineParams p, int maxContext, int blockMax, int[] format,
                               Fusion fusion) {
    ModelConfig one = new ModelConfig(c.dim(), c.hiddenDim(), 1, c.heads(), c.kvHeads(), c.vocabSize(), c.maxSeqLen(),
        c.ropeTheta(), c.normEps());
    LoweredModel layout = LoweredModel.layoutOnly(one, p, maxContext, maxContext, format[0], format[1], format[2],
        format[3]);
    if (layout.orderQkvByTiles() != null) {
      return null;
    }
    LoweringEmitter e = new LoweringEmitter(new LoweringLayout(layout, blockMax, true), prog -> layout.dspPool, fusion);
    return new AttentionLowering(e, fusion).blockQkvPost();
  }

  private DspRoutines r() {
    return r;
  }

  /**
   * Why a block-wide post cannot go on {@code p} for Wqkv ordered as {@code tiles} ({@code vQkvBytes}: the channel
   * scales' byte offset in the layer's vector block), or null: every copy's scratchpad address must be whole lines.
   */
  static String shapeWhyNot(ModelConfig c, MachineParams p, QkvTiles tiles, boolean headMajorKeys, long vQkvBytes) {
    int lanes = p.dsp().lanes();
    int line = p.lineBytes();
    int half = c.headDim() / 2;
    if (lanes % line != 0 || vQkvBytes % line != 0) {
      return "a DSP row of INT8 codes (" + lanes + " bytes) or the QKV channel scales' offset (" + vQkvBytes
          + " bytes) is not whole lines of " + line + " bytes";
    }
    if (headMajorKeys && half % lanes != 0 && (lanes % half != 0 || 2 * half > line)) {
      return "head-major K rows need headDim/2 (" + half + ") a multiple of the lanes (" + lanes + ") or a divisor "
          + "whose FP16 codes fit a line (" + line + " bytes)";
    }
    return null;
  }

  /** DSP rows a token of a group takes: the tile, its K chunks, its channel scales, its cos and sin rows. */
  static int rowsPerToken(ModelConfig c, MachineParams p, QkvTiles tiles, KSplit ks) {
    int lanes = p.dsp().lanes();
    int rows = (tiles.tile() + lanes - 1) / lanes;
    return rows * (2 + (ks.combined() ? ks.count() : 0)) + 2 * pairRows(c, tiles, lanes);
  }

  /** Tokens a group: as many as {@code free} rows hold beside the K/V scale rows, at most {@code blockMax}. */
  static int groupTokens(int free, int rowsPerToken, int blockMax, int lanes) {
    for (int g = blockMax; g >= 1; g--) {
      if ((long) g * rowsPerToken + 2L * ((g + lanes - 1) / lanes) <= free) {
        return g;
      }
    }
    return 0;
  }

  /** The most pair rows (evens) of a q or k segment of any tile: the cos and sin rows a token needs. */
  static int pairRows(ModelConfig c, QkvTiles tiles, int lanes) {
    int rows = 0;
    for (int j = 0; j < tiles.count(); j++) {
      for (QkvTiles.Segment s : tiles.segments(j)) {
        rows = s.part() == QkvTiles.V ? rows : Math.max(rows, s.heads() * (c.headDim() / 2) / lanes);
      }
    }
    return rows;
  }

  /** Scratchpad bytes a token takes in the stage: a q segment's FP16 codes, or head-major K's half-head lines. */
  static long stageBytesPerToken(ModelConfig c, MachineParams p, QkvTiles tiles) {
    int lanes = p.dsp().lanes();
    int half = c.headDim() / 2;
    long q = 4L * pairRows(c, tiles, lanes) * lanes;
    long k = half < lanes ? 2L * p.lineBytes() * (lanes / half) : 0;
    return LoweredModel.roundUp(Math.max(q, k), p.lineBytes());
  }

  /** A new layer: its cos/sin rows come in with its first tile's post. */
  void layerStart() {
    cosFor = -1;
  }

  /**
   * Tile j's post for block tokens {@code 0..n-1} at positions {@code pos..}, group by group; its results at
   * {@code y} (token t's at {@code y + 4·t·tile}), static scales {@code s} (q, k, v).
   */
  void post(int j, int n, int pos, long y, double[] s) {
    for (int t0 = 0; t0 < n; t0 += groupTokens) {
      int g = Math.min(groupTokens, n - t0);
      if (cosFor != t0) {
        cosSinIn(t0, g);
        cosFor = n > groupTokens ? -1 : t0;
      }
      group(j, t0, g, pos, y + 4L * t0 * tiles.tile(), s);
    }
  }

  /** Tokens t0.. of the group's cos and sin rows, pair row i of token t at {@code rCos + i·g + t}. */
  private void cosSinIn(int t0, int g) {
    for (int i = 0; i < pairRows(l.c, tiles, lanes); i++) {
      long at = sRope + (long) t0 * ropeRowBytes + 2L * i * lanes;
      e.b.dspIn(at, ropeRowBytes, lanes, g, rCos + i * g, Command.FMT_FP16, 0);
      e.b.dspIn(at + 2L * l.nq, ropeRowBytes, lanes, g, rSin + i * g, Command.FMT_FP16, 0);
    }
  }

  private void group(int j, int t0, int g, int pos, long y, double[] s) {
    var b = e.b;
    int col0 = j * tiles.tile();
    int width = Math.min(tiles.tile(), l.m.qkvN - col0);
    int rows = width / lanes;
    long yStride = 4L * tiles.tile();
    if (!ks.combined()) {
      for (int rho = 0; rho < rows; rho++) {
        b.dspIn(y + 4L * rho * lanes, yStride, lanes, g, rA + rho * g, Command.FMT_INT32, ks.sigma());
      }
    } else {
      for (int c = 0; c < ks.count(); c++) {
        for (int rho = 0; rho < rows; rho++) {
          b.dspIn(y + c * l.yChunkBytes + 4L * rho * lanes, yStride, lanes, g, rPart + (c * rows + rho) * g,
              Command.FMT_INT32, ks.sigma());
        }
      }
      e.run(sumProgram(rows, g));
    }
    for (int rho = 0; rho < rows; rho++) {
      b.dspIn(l.sVEC + 2L * (l.m.vQkv + col0 + rho * lanes), 0, lanes, g, rVec + rho * g, Command.FMT_FP16, 0);
    }
    e.run(scaleProgram(width, g));
    for (QkvTiles.Segment seg : tiles.segments(j)) {
      int at = rA + seg.offset() / lanes * g;
      int len = seg.heads() * l.half;
      int segRows = len / lanes;
      short k = LoweringEmitter.half(1 / s[seg.part()]);
      short d = LoweringEmitter.half(s[seg.part()]);
      if (seg.part() != QkvTiles.V) {
        e.run(ropeProgram(seg, g));
      }
      e.run(quantizeProgram(seg, t0, g, k, d));
      if (seg.part() == QkvTiles.V) {
        long row0 = l.sVC + (long) (pos + t0) * l.m.kvBytes + (long) seg.head() * l.c.headDim();
        for (int rho = 0; rho < 2 * segRows; rho++) {
          b.dspOut(row0 + (long) rho * lanes, l.m.kvBytes, lanes, g, at + rho * g, Command.FMT_INT8);
        }
        continue;
      }
      if (seg.part() == QkvTiles.Q) {
        queriesOut(seg, at, segRows, t0, g);
      } else {
        keysOut(seg, at, segRows, l.sKC + (long) (pos + t0) * l.m.kvBytes, g);
      }
    }
    // the slots' K (V) scale, once K (V) is complete: before the Kᵀ staging reuses these rows
    int kvPad = LoweredModel.roundUp(l.c.kvDim(), l.line);
    long slot0 = (long) (pos + t0) * l.m.kvBytes + kvPad;
    if (j == lastKeys()) {
      b.dspOut(l.sKC + slot0, l.m.kvBytes, 1, g, rKS, Command.FMT_FP16);
    }
    if (j == tiles.count() - 1) {
      b.dspOut(l.sVC + slot0, l.m.kvBytes, 1, g, rVS, Command.FMT_FP16);
    }
  }

  /** The last tile that holds K heads. */
  int lastKeys() {
    int last = -1;
    for (int j = 0; j < tiles.count(); j++) {
      last = tiles.holdsKeys(j) ? j : last;
    }
    return last;
  }

  /** The K chunks' partials of a tile of {@code rows} DSP rows a token summed ({@link DspRoutines#sumPartials}). */
  DspProgram sumProgram(int rows, int g) {
    return r.sumPartials(rPart, ks.count(), rows * g, rows * g * lanes, -1, rA);
  }

  /** A tile of {@code width} columns dequantized, {@code (acc·x scale)·channel scale} (static x scale), in place. */
  DspProgram scaleProgram(int width, int g) {
    return r.scale(rA, g * width, rDX, rVec, null, -1, rA);
  }

  /** A q or k segment's RoPE over the group (evens, odds, cos, sin: each a block of rows), in place. */
  DspProgram ropeProgram(QkvTiles.Segment seg, int g) {
    int at = rA + seg.offset() / lanes * g;
    int len = seg.heads() * half;
    int evens = len / lanes * g;
    return r.kernel(DspKernel.ROPE, 2 * len * g, new int[] {at, at + evens, rCos, rSin}, new int[] {at, at + evens});
  }

  /**
   * A segment's static quantization ({@code k = 1/s}, {@code d = s}) over the group, in place; {@code d} to the q
   * scale rows {@code rDQ + t0 ..} (one a token), or the K or V scale rows (as many as the slots' scale
   * {@code dspout} reads).
   */
  DspProgram quantizeProgram(QkvTiles.Segment seg, int t0, int g, short k, short d) {
    int at = rA + seg.offset() / lanes * g;
    int len = seg.heads() * half;
    int scaleRows = (g + lanes - 1) / lanes;
    int row = seg.part() == QkvTiles.Q ? rDQ + t0 : seg.part() == QkvTiles.K ? rKS : rVS;
    return r.quantizeStatic(at, 2 * len * g, -1, k, at, row, seg.part() == QkvTiles.Q ? g : scaleRows, d);
  }

  /** A q segment's codes (raw FP16 elements) to rows {@code rQQ + t·2·qRows + head} of tokens t0.. (class comment). */
  private void queriesOut(QkvTiles.Segment seg, int at, int segRows, int t0, int g) {
    var b = e.b;
    int qRows = r().rows(l.nq);
    long stride = 4L * segRows * lanes;
    for (int i = 0; i < 2 * segRows; i++) {
      b.dspOut(sStage + 2L * i * lanes, stride, lanes, g, at + i * g, Command.FMT_FP16);
    }
    int dst = l.rQQ + t0 * 2 * qRows + seg.head() * l.half / lanes;
    int dstStride = g > 1 ? 2 * qRows : 0;
    b.dspIn(sStage, stride, (long) segRows * lanes, g, dst, Command.FMT_FP16, 0, dstStride);
    b.dspIn(sStage + 2L * segRows * lanes, stride, (long) segRows * lanes, g, dst + qRows, Command.FMT_FP16, 0,
        dstStride);
  }

  /** A k segment's codes to the cache rows from {@code row0} (g slots): flat, or head-major (class comment). */
  private void keysOut(QkvTiles.Segment seg, int at, int segRows, long row0, int g) {
    var b = e.b;
    int headDim = l.c.headDim();
    long kvBytes = l.m.kvBytes;
    for (int i = 0; i < segRows; i++) {
      int evens = at + i * g;
      int odds = at + (segRows + i) * g;
      if (!headMajorKeys) {
        long e0 = (long) seg.head() * half + (long) i * lanes;
        b.dspOut(row0 + e0, kvBytes, lanes, g, evens, Command.FMT_INT8);
        b.dspOut(row0 + l.nk + e0, kvBytes, lanes, g, odds, Command.FMT_INT8);
      } else if (half % lanes == 0) {
        int p = i * lanes;
        long h = (long) (seg.head() + p / half) * headDim + p % half;
        b.dspOut(row0 + h, kvBytes, lanes, g, evens, Command.FMT_INT8);
        b.dspOut(row0 + h + half, kvBytes, lanes, g, odds, Command.FMT_INT8);
      } else {
        // q = lanes/half heads a row: their half-head chunks a line apart, evens then odds, read back head-major
        int perRow = lanes / half;
        int line = l.line;
        b.dspOut(sStage, 2L * line, half, (long) g * perRow, evens, Command.FMT_FP16);
        b.dspOut(sStage + line, 2L * line, half, (long) g * perRow, odds, Command.FMT_FP16);
        b.dspIn(sStage, line, half, 2L * g * perRow, rVec, Command.FMT_FP16, 0);
        b.dspOut(row0 + (long) (seg.head() + i * perRow) * headDim, kvBytes, 2L * lanes, g, rVec, Command.FMT_INT8);
      }
    }
  }
}
