package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * The attention half of a layer for a block of tokens: RMSNorm → INT8 → fused QKV GEMM →
 * dequantize → RoPE → K/V quantized and appended to the cache (one DMA store per layer) → per
 * token and head the scores GEMV (K·q), SoftMax, P·V GEMM → the heads' output quantized → Wo GEMM
 * + residual. Numerics as described in {@link DecoderLowering}. At {@code --fusion full} the part after the K/V
 * rows are stored is {@link BatchedAttention} (one P·V GEMM per KV head over a batch's queries; same logits), the
 * cos/sin rows of the block's slots come in one load, and the Wo residual is left to the feed-forward half, which adds
 * it together with its RMSNorm ({@link NormEmitter#residualNormQuantize}).
 */
final class AttentionLowering {
  private final LoweringEmitter e;
  private final LoweringLayout l;
  /** At {@code --fusion full} the batched attention core ({@link BatchedAttention}), else none: per token and head. */
  private final BatchedAttention batched;
  /** At {@code --fusion full} the cos/sin rows of the block's slots (one load a layer), else -1. */
  private final int sRope;
  /** For a model with Wqkv ordered per tile ({@link LoweredModel#orderQkvByTiles}) the tiled QKV post, else null. */
  private final TiledQkvPost tiledPost;
  /** The weave hooks ({@link AttentionWeave}). */
  final AttentionWeave weave;
  /** Where the K halves are padded to whole rows ({@link LoweredModel#kSpan}): two staging lines ({@link #keyRowOut}). */
  private final int sKeyHalves;

  AttentionLowering(LoweringEmitter emitter) {
    this(emitter, Fusion.NONE);
  }

  AttentionLowering(LoweringEmitter emitter, Fusion fusion) {
    this.e = emitter;
    this.l = emitter.l;
    this.batched = fusion == Fusion.FULL ? new BatchedAttention(emitter) : null;
    this.sRope = batched == null ? -1
        : l.spadRegion((long) l.blockMax * ropeRowBytes(), "the block's RoPE cos/sin rows");
    this.tiledPost = l.m.qkvTiles == null ? null : new TiledQkvPost(emitter, batched, sRope, ropeRowBytes());
    this.sKeyHalves = l.kSpan == l.nk ? -1
        : l.spadRegion(2L * LoweredModel.roundUp(2L * l.nk, l.line), "the K row's halves joined");
    this.weave = new AttentionWeave(emitter, this, batched);
    this.stores = new BlockKvStores(emitter);
  }

  /** The tiled QKV post, or null ({@link AttentionWeave#weavesHead}). */
  TiledQkvPost tiledPost() {
    return tiledPost;
  }

  /** The block-wide QKV post of a model with Wqkv ordered per tile, where its shape allows ({@link BlockQkvPost}). */
  BlockQkvPost blockQkvPost() {
    return tiledPost == null ? null : tiledPost.blockPost();
  }

  /** {@link BatchedAttention#batching}, or {0, 0} without the batched core. */
  int[] batching() {
    return batched == null ? new int[2] : batched.batching();
  }

  /** The block's K/V row stores, now or held ({@link BlockKvStores}). */
  final BlockKvStores stores;
  /** The program, first position and tokens whose cos/sin rows {@link #sRope} holds. */
  private CommandStream ropeProgram;
  private int ropePos;
  private int ropeTokens;

  /**
   * Whether {@link #sRope} (the block's own, written by this load only) holds the cos/sin rows of tokens
   * {@code pos .. pos + n − 1} in program {@code b}: a block's later layers of a step read its first layer's
   * (the walk's twin: {@code QkvPostWalk#ropeRowsIn}); else they are noted as loaded now.
   */
  private boolean ropeRowsIn(CommandStream b, int n, int pos) {
    if (ropeProgram == b && ropePos == pos && ropeTokens == n) {
      return true;
    }
    ropeProgram = b;
    ropePos = pos;
    ropeTokens = n;
    return false;
  }

  /** Scratchpad bytes of one slot's cos/sin row in {@link #sRope}. */
  private int ropeRowBytes() {
    return l.ropeRowBytes;
  }

  /** Layer {@code layer} for block tokens {@code 0..n-1} at positions {@code pos..}; the cache holds {@code [0, pos)}. */
  void emit(int layer, int n, int pos) {
    cacheIn(layer, n, pos);
    if (tiledPost != null) {
      norms(n);
      tiledPost.emit(layer, n, pos, false, ropeRowsIn(e.b, n, pos));
      afterKvRows(layer, n, pos);
      return;
    }
    emitHead(layer, n, pos);
    emitAfterQkv(layer, n, pos);
  }

  /**
   * The rest of the layer after {@link #emitHead}: the cache's rows in, then as {@link #emit} after the QKV GEMM (with
   * the tiled post: after it, Kᵀ's lines first where the head left them, {@link #keysAfterCache}).
   */
  void emitTail(int layer, int n, int pos) {
    cacheIn(layer, n, pos);
    if (tiledPost != null) {
      if (keysAfterCache(pos)) {
        tiledPost.keyLines(n, pos);
      }
      afterKvRows(layer, n, pos);
      return;
    }
    emitAfterQkv(layer, n, pos);
  }

  /**
   * With the tiled post in a skewed head ({@link #emitHead}): whether the block's first line of Kᵀ holds slots before
   * its own, whose K rows come into the scratchpad with the cache's rows in the tail, so that the line is staged there
   * ({@link TiledQkvPost#keyLines}; the same copies, after the cache's rows instead of after the last K tile).
   */
  private boolean keysAfterCache(int pos) {
    return pos % l.line != 0;
  }

  /** The cache's rows {@code [0, pos)} of layer {@code layer} into the scratchpad (and their Kᵀ lines). */
  private void cacheIn(int layer, int n, int pos) {
    var b = e.b;
    var m = l.m;
    if (pos > 0) {
      b.load(kBase(layer), m.kvBytes, l.sKC, m.kvBytes, m.kvBytes, pos);
      b.load(vBase(layer), m.kvBytes, l.sVC, m.kvBytes, m.kvBytes, pos);
    }
    if (batched != null && batched.keyScores != null) {
      batched.keyScores.loadLines(layer, n, pos);
    }
  }

  private long kBase(int layer) {
    return l.m.kCache + (long) layer * l.m.maxContext() * l.m.kvBytes;
  }

  private long vBase(int layer) {
    return l.m.vCache + (long) layer * l.m.maxContext() * l.m.kvBytes;
  }

  /**
   * Every token's RMSNorm and quantization, then the QKV GEMM: they read no K/V row, so with a skewed pair of blocks
   * ({@link DecoderLowering#skewed}) they go before the other block's K/V rows are stored ({@link #emitTail} after).
   * With the tiled post (static q/k/v scales) the head is the QKV GEMM with its tiles' posts, which write the block's
   * own K/V rows and Kᵀ's lines in the scratchpad (not the stored cache; those of a line shared with earlier slots
   * wait for the tail, {@link #keysAfterCache}).
   */
  void emitHead(int layer, int n, int pos) {
    if (tiledPost != null) {
      norms(n);
      tiledPost.emit(layer, n, pos, keysAfterCache(pos), ropeRowsIn(e.b, n, pos));
      return;
    }
    norms(n);
    e.weight(l.m.wQkv[layer], l.c.dim(), l.m.qkvN);
    e.gemmTiled(n, l.c.dim(), l.m.qkvN, l.sXS, l.xsStride);
  }

  /** Every token's RMSNorm and quantization into the QKV GEMM's X rows. */
  void norms(int n) {
    for (int t = 0; t < n; t++) {
      if (batched != null && l.rPair >= 0 && t + 1 < n) {
        // at full two tokens' RMSNorms and quantizations share runs
        e.normQuantizePair(t, l.rG1, e.xScaleRow(t), l.sXS + (long) t * l.xsStride, l.xsStride, l.rPair);
        t++;
      } else {
        e.normQuantize(t, l.rG1, e.xScaleRow(t), l.sXS + (long) t * l.xsStride);
      }
    }
  }

  /** After the QKV GEMM: each token's scale, RoPE, quantization and K/V rows, the attention and the O GEMM. */
  private void emitAfterQkv(int layer, int n, int pos) {
    var b = e.b;
    var m = l.m;
    var c = l.c;
    var r = l.r;
    int line = l.line;
    TransposedKeys kT = batched == null ? null : batched.keyScores;
    int kvPad = LoweredModel.roundUp(c.kvDim(), line);
    if (batched != null && !ropeRowsIn(b, n, pos)) {
      b.load(m.rope + (long) pos * m.ropeStride, m.ropeStride, sRope, ropeRowBytes(), 4L * l.qSpan, n);
    }
    int qRows = r.rows(l.nq);
    int kRows = r.rows(l.nk);
    double[] qkvScales = e.staticQkv && e.epilogue != null ? new double[] {e.epilogue.of(StaticScales.Site.Q, layer),
        e.epilogue.of(StaticScales.Site.K, layer), e.epilogue.of(StaticScales.Site.V, layer)} : null;
    // at full with the static input scale, every token's scale, RoPE and quantization is one program (the q codes and
    // scale staged in rAcc's rows, which the scale has read, then moved to the token's rows before anything else
    // writes rAcc): kept in the program memory
    boolean pinned = batched != null && b.resident() && e.inputScale > 0
        && 2 * qRows + 1 <= r.rows(Math.max(m.qkvN, Math.max(c.hiddenDim(), c.dim())))
        && r.pins(n, qkvPrograms(qRows, kRows, 0, true, qkvScales), moveWords());
    for (int t = 0; t < n; t++) {
      int slot = pos + t;
      if (batched != null) {
        // at full the cos/sin row comes first, so that the dequantization, RoPE and quantization runs join
        b.dspIn(sRope + (long) t * ropeRowBytes(), line, 2L * l.qSpan, 1, l.rCs, Command.FMT_FP16, 0);
      }
      e.resultIn((long) t * l.yStride, m.qkvN, l.rAcc, l.rWsQkv);
      if (batched == null) {
        var programs = qkvPrograms(qRows, kRows, t, false, qkvScales);
        e.run(programs.get(0));
        ropeIn(slot);
        programs.subList(1, programs.size()).forEach(e::run);
      } else if (pinned) {
        b.dspRunPinned(qkvPrograms(qRows, kRows, t, true, qkvScales));
        e.run(r.moveElements(l.rAcc, 2 * l.qSpan, l.rQQ + t * 2 * qRows));
        e.run(r.moveElements(l.rAcc + 2 * qRows, r.lanes(), l.rDQ + t));
      } else {
        qkvPrograms(qRows, kRows, t, false, qkvScales).forEach(e::run);
      }
      if (batched != null && batched.headMajorKeys) {
        batched.keys.out(l.sKC + (long) slot * m.kvBytes);
      } else {
        keyRowOut(l.sKC + (long) slot * m.kvBytes);
      }
      if (kT != null) {
        // a line of slots complete: its K rows (the K row's order) to Kᵀ
        kT.scatter(t, n, pos);
      }
      b.dspOut(l.sKC + (long) slot * m.kvBytes + kvPad, line, 1, 1, l.rDK, Command.FMT_FP16);
      b.dspOut(l.sVC + (long) slot * m.kvBytes, line, c.kvDim(), 1, l.rVQ, Command.FMT_INT8);
      b.dspOut(l.sVC + (long) slot * m.kvBytes + kvPad, line, 1, 1, l.rDV, Command.FMT_FP16);
    }
    afterKvRows(layer, n, pos);
  }

  /** After the block's K/V rows are in the scratchpad: they are stored, then the attention and the O GEMM. */
  private void afterKvRows(int layer, int n, int pos) {
    var b = e.b;
    var m = l.m;
    TransposedKeys kT = batched == null ? null : batched.keyScores;
    int kvPad = LoweredModel.roundUp(l.c.kvDim(), l.line);
    stores.store(layer, n, pos, kBase(layer), vBase(layer), kT);
    b.dspIn(l.sKC + kvPad, m.kvBytes, 1, pos + n, l.rDKV, Command.FMT_FP16, 0);
    b.dspIn(l.sVC + kvPad, m.kvBytes, 1, pos + n, l.rDVV, Command.FMT_FP16, 0);
    // the V scales to the probability codes' weights (ValueScaleBound), whatever the fusion: the same codes
    e.run(l.r.valueWeights(l.rDVV, pos + n));
    if (batched != null) {
      batched.emit(n, pos, layer == 0);
    } else {
      for (int t = 0; t < n; t++) {
        heads(t, pos + t + 1);
      }
    }
    e.weight(m.wO[layer], m.oK, l.c.dim());
    e.gemmTiled(n, m.oK, l.c.dim(), l.sXO, l.xoStride);
    if (batched != null) {
      // at full the feed-forward half adds the Wo results with its RMSNorm (NormEmitter.residualNormQuantize)
      return;
    }
    for (int t = 0; t < n; t++) {
      e.residual(t, l.rDO + t, null, l.rWsO);
    }
  }

  /**
   * Token t's scale of its QKV results, the RoPE of q and k and the quantization of q, k, v: the q codes and scale to
   * the token's rows, or with {@code staged} to rAcc's rows (the same programs for every token); q, k and v quantized
   * with the static scales {@code qkvScales} (q, k, v; {@link DecoderLowering#staticQkv}) when not null.
   */
  private List<DspProgram> qkvPrograms(int qRows, int kRows, int t, boolean staged, double[] qkvScales) {
    var r = l.r;
    List<DspProgram> programs = new ArrayList<>();
    programs.add(r.scale(l.rAcc, l.m.qkvN, e.xScaleRow(t), e.channelScales(l.rWsQkv), null, -1, l.rQkv));
    // RoPE and the quantizations over the halves padded to whole rows (LoweredModel#qSpan): the padding is zeros
    programs.add(r.kernel(DspKernel.ROPE, 2 * l.qSpan, new int[] {l.rQkv, l.rQkv + qRows, l.rCs, l.rCs + qRows},
        new int[] {l.rQ, l.rQ + qRows}));
    programs.add(r.kernel(DspKernel.ROPE, 2 * l.kSpan, new int[] {l.rQkv + 2 * qRows, l.rQkv + 2 * qRows + kRows,
        l.rCs, l.rCs + qRows}, new int[] {l.rK, l.rK + kRows}));
    var vectors = List.of(
        new DspQuantizer.Vector(l.rQ, 2 * l.qSpan, -1, staged ? l.rAcc : l.rQQ + t * 2 * qRows,
            staged ? l.rAcc + 2 * qRows : l.rDQ + t),
        new DspQuantizer.Vector(l.rK, 2 * l.kSpan, -1, l.rKQ, l.rDK),
        new DspQuantizer.Vector(l.rQkv + 2 * qRows + 2 * kRows, l.c.kvDim(), -1, l.rVQ, l.rDV));
    programs.addAll(QkvQuantizations.of(r, vectors, qkvScales));
    return programs;
  }

  /** Words of the two moves of the staged q codes and scale to the token's rows, joined. */
  private int moveWords() {
    return DspChain.join(List.of(l.r.moveElements(0, 2 * l.qSpan, 0), l.r.moveElements(0, l.r.lanes(), 0)))
        .size();
  }

  /** The cos/sin row of cache slot {@code slot} → DSP rows rCs (through sVEC). */
  private void ropeIn(int slot) {
    e.b.load(l.m.rope + (long) slot * l.m.ropeStride, l.line, l.sVEC, l.line, 4L * l.qSpan, 1);
    e.b.dspIn(l.sVEC, l.line, 2L * l.qSpan, 1, l.rCs, Command.FMT_FP16, 0);
  }

  /**
   * The K row's codes (evens then odds, kvDim INT8) from rKQ to the scratchpad at {@code at}: one {@code dspout}, or
   * where the halves are padded to whole rows ({@link LoweredModel#kSpan}) first joined: each half out as raw FP16 to
   * a line of {@link #sKeyHalves} of its own, both read back as one flat vector at rAcc (free after the
   * dequantization, as {@link KeyRows} uses it), then that vector out.
   */
  private void keyRowOut(long at) {
    var b = e.b;
    if (l.kSpan == l.nk) {
      b.dspOut(at, l.line, l.c.kvDim(), 1, l.rKQ, Command.FMT_INT8);
      return;
    }
    long halfBytes = LoweredModel.roundUp(2L * l.nk, l.line);
    b.dspOut(sKeyHalves, halfBytes, l.nk, 1, l.rKQ, Command.FMT_FP16);
    b.dspOut(sKeyHalves + halfBytes, halfBytes, l.nk, 1, l.rKQ + l.r.rows(l.nk), Command.FMT_FP16);
    b.dspIn(sKeyHalves, halfBytes, l.nk, 2, l.rAcc, Command.FMT_FP16, 0);
    b.dspOut(at, l.line, l.c.kvDim(), 1, l.rAcc, Command.FMT_INT8);
  }

  /** Attention of block token t over {@code s} slots, all heads; its quantized output to sXO row t. */
  private void heads(int t, int s) {
    var b = e.b;
    var m = l.m;
    var c = l.c;
    var r = l.r;
    var p = l.p;
    int line = l.line;
    int half = l.half;
    int qRows = r.rows(l.nq);
    int qq = l.rQQ + t * 2 * qRows;
    boolean aligned = half % l.lanes == 0;
    if (!aligned) {
      e.run(r.scatter(qq, c.heads(), half, l.rQS));
    }
    int sigmaS = LoweredModel.shift(c.kvDim());
    int sigmaP = LoweredModel.shift(m.maxContext());
    short scoreScale = LoweringEmitter.half(Math.scalb(1.0, -sigmaS) / Math.sqrt(c.headDim()));
    int sRows = r.rows(m.maxContext());
    // the token's V-scale bound over its own slots (ValueScaleBound), for every head group's codes
    ValueScaleBound.emit(e, s, l.rBound);
    for (int h0 = 0; h0 < c.heads(); h0 += l.headGroup) {
      int group = Math.min(l.headGroup, c.heads() - h0);
      List<DspQuantizer.Vector> probabilities = new ArrayList<>();
      List<DspProgram> scoreScales = new ArrayList<>();
      List<AttentionSoftmax.Head> softmaxes = new ArrayList<>();
      for (int i = 0; i < group; i++) {
        int h = h0 + i;
        int g = h / c.groupSize();
        long wq = l.sWQ + (long) h * l.wqBytes;
        int evens = aligned ? qq + h * half / l.lanes : l.rQS + h;
        int odds = aligned ? qq + (l.nq + h * half) / l.lanes : l.rQS + c.heads() + h;
        b.dspOut(wq + (long) half * g * line, line, 1, half, evens, Command.FMT_INT8);
        b.dspOut(wq + (long) (l.nk + half * g) * line, line, 1, half, odds, Command.FMT_INT8);
        // the scores over the head's own windows of the K row (ScoreWindows; the same partials, fewer MACs)
        List<int[]> windows = ScoreWindows.of(c, l.scoreSplit, line, g);
        for (int wi = 0; wi < windows.size(); wi++) {
          int k0 = windows.get(wi)[0];
          for (int m0 = 0; m0 < s; m0 += p.maxM()) {
            int mm = Math.min(p.maxM(), s - m0);
            b.gemm(mm, windows.get(wi)[1], 1, l.sKC + (long) m0 * m.kvBytes + k0, m.kvBytes, wq + (long) k0 * line,
                line, l.sYS + wi * l.ysChunkBytes + (long) m0 * line, line);
          }
        }
        e.partialsIn(ScoreWindows.partials(windows), l.sYS, l.ysChunkBytes, line, 1, s, l.rSc + i * sRows, sigmaS,
            -1);
        scoreScales.add(r.scale(l.rSc + i * sRows, s, l.rDQ + t, l.rDKV, scoreScale, -1, l.rSc2 + i * sRows));
        softmaxes.add(AttentionSoftmax.Head.unscaled(l.rSc2 + i * sRows, l.rP + i * sRows));
        probabilities.add(new DspQuantizer.Vector(l.rP + i * sRows, s, l.rDVV, l.rPQ + i * sRows, l.rDP + i));
      }
      // the group's scores scaled, and their SoftMax, in shared runs when their programs merge
      r.merged(scoreScales).forEach(e::run);
      // then their SoftMax and codes against the token's bound (AttentionSoftmax#withCodes), merged where it pays
      r.probabilityRuns(softmaxes, probabilities, l.rBound, s).forEach(e::run);
      List<DspProgram> outputScales = new ArrayList<>();
      for (int i = 0; i < group; i++) {
        int h = h0 + i;
        int g = h / c.groupSize();
        b.dspOut(l.sXP, line, s, 1, l.rPQ + i * sRows, Command.FMT_INT8);
        int first = c.headDim() * g;
        int off = first / line * line;
        int col = first - off;
        KSplit pv = l.split(s);
        for (int ci = 0; ci < pv.count(); ci++) {
          int k0 = pv.start(ci);
          b.gemm(1, pv.length(ci), col + c.headDim(), l.sXP + k0, line, l.sVC + off + (long) k0 * m.kvBytes, m.kvBytes,
              l.sYO + ci * l.yoChunkBytes, line);
        }
        // results off a line are read with the `lead` columns before them, then moved down (HeadWindows)
        int lead = HeadWindows.onALine(c, line, g) ? 0 : col;
        int rows = l.rO + h * l.hdRows;
        e.partialsIn(pv, l.sYO + 4L * (col - lead), l.yoChunkBytes, line, lead + c.headDim(), 1, rows, sigmaP, -1);
        r.headsDown(rows, l.hdRows, 1, lead).forEach(e::run);
        outputScales.add(r.scale(rows, l.hdRows * l.lanes, l.rDP + i, -1, ValueScaleBound.OUTPUT_SCALE, -1,
            l.rOF + h * l.hdRows));
      }
      // the group's head outputs dequantized in one run when their programs merge
      r.merged(outputScales).forEach(e::run);
    }
    e.run(r.quantize(l.rOF, m.oK, -1, l.rOQ, l.rDO + t));
    b.dspOut(l.sXO + (long) t * l.xoStride, line, m.oK, 1, l.rOQ, Command.FMT_INT8);
  }
}
