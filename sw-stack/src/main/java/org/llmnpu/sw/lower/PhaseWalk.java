package org.llmnpu.sw.lower;

import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The shapes and shared command sequences of {@link PhaseCostModel}'s extrapolated walk: the model's and the
 * lowering's derived sizes, the block GEMMs as {@link LoweringEmitter} tiles them (K chunks, N tiles, streamed
 * weights), their results into the DSP ({@code dspin} per K chunk and {@code sumPartials}), the residual and the
 * RMSNorm with its quantization. {@link AttentionWalk}, {@link BatchedAttentionWalk} and {@link FeedForwardWalk} add
 * the phases' commands; every command is costed by {@link CommandCosts} on {@code npu-isa}'s cycle model.
 */
abstract class PhaseWalk extends DspRunCosts {
  /** Bytes of an element a {@code dspin}/{@code dspout} moves, by its format. */
  static final int INT8 = 1;
  static final int FP16 = 2;
  static final int INT32 = 4;
  final ModelConfig c;
  final DspRoutines r;
  final int lanes;
  /**
   * As {@link BatchedAttentionLayout#headMajorKeys}: at full the K rows head-major and each scores GEMV over its
   * window.
   */
  final boolean headMajorKeys;
  /** With head-major keys, whether the K rows go out directly ({@link BatchedAttentionLayout#directKeys}). */
  final boolean directKeys;
  /** As {@link LoweringEmitter}'s resident x: at full a one-token block keeps x in the DSP. */
  boolean keepsX;
  /**
   * The layer the walk emits now and the static scale site its RMSNorms' quantizations are for (null: the LM head's
   * input): their DSP programs carry the layout-only scale of that site and layer ({@link StaticScales#placeholder},
   * as the lowering's layout-only programs do), so which of them repeat from layer to layer is the lowering's.
   */
  int walkLayer;
  StaticScales.Site quantSite;
  private final StaticScales placeholders;
  boolean xInDsp;
  final boolean stream;
  final int half;
  final int nq;
  final int nk;
  /** As {@link LoweredModel#qSpan} and {@link LoweredModel#kSpan}: the q (k) halves padded to whole DSP rows. */
  final int qSpan;
  final int kSpan;
  final int hdRows;
  final int oK;
  final int qkvN;
  final int w13N;
  final int h3Offset;
  final int kvBytes;
  final int maxContext;
  final int blockMax;
  final int layerVectorElems;
  /** Where a layer's channel vectors of the group-scaled copies start (elements; the block's end without them). */
  final int channelVectors;
  /** Elements of a layer's vectors before the channel vectors (what the unfused program loads). */
  final int groupVectorsEnd;
  final int bits;
  final int group;
  /** Block weights stream as group-scaled INT4 copies ({@link LoweredModel#groupScaledStream}, a fused level). */
  final boolean groupScaled;
  final int sparsity;
  final int kTile;
  final boolean extrapolate;
  final int mxFormat;
  final Fusion fusion;
  /** The feed-forward's GEMM epilogues run on the PPM ({@link PpmEpilogues#applies}; extrapolated walk). */
  final boolean epilogue;

  /** The walk of fusion level {@code fusion} as the NPU applies it ({@link Fusion#appliedOn}); see {@link PhaseCostModel}. */
  PhaseWalk(ModelConfig c, MachineParams p, int maxContext, int blockMax, boolean extrapolate,
            int weightBits, int weightGroup, int sparsity, int mxFormat, Fusion fusion) {
    super(p);
    fusion = fusion.appliedOn(p, weightBits, sparsity, mxFormat);
    this.fusion = fusion;
    this.chainRuns = fusion == Fusion.FULL;
    // resident runs at full, as in DecoderLowering: the walk's programs differ where the lowering's do (per-token rows)
    this.residency = fusion == Fusion.FULL ? new DspResidency(p) : null;
    this.epilogue = fusion != Fusion.NONE && PpmEpilogues.applies(p, c.dim(), weightGroup, sparsity, mxFormat);
    this.extrapolate = extrapolate;
    this.mxFormat = mxFormat;
    this.c = c;
    this.placeholders = StaticScales.placeholder(c);
    this.bits = weightBits;
    this.group = weightGroup;
    this.sparsity = sparsity;
    this.kTile = p.maxK() / p.lineBytes() * p.lineBytes();
    this.lanes = p.dsp().lanes();
    this.r = new DspRoutines(p.dsp(), c.normEps());
    this.half = c.headDim() / 2;
    this.nq = c.heads() * half;
    this.nk = c.kvHeads() * half;
    this.qSpan = LoweredModel.roundUp(nq, lanes);
    this.kSpan = LoweredModel.roundUp(nk, lanes);
    this.hdRows = r.rows(c.headDim());
    this.headMajorKeys = this.fusion == Fusion.FULL && BatchedAttentionLayout.headMajorKeys(c, p, split(c.kvDim()));
    this.directKeys = headMajorKeys && BatchedAttentionLayout.directKeys(c, p);
    this.stream = extrapolate;
    this.oK = c.heads() * LoweredModel.roundUp(c.headDim(), lanes);
    // as LoweredModel: [q evens | q odds | k evens | k odds | v], each RoPE half padded to whole DSP rows
    this.qkvN = 2 * qSpan + 2 * kSpan + c.kvDim();
    this.h3Offset = LoweredModel.roundUp(c.hiddenDim(), Math.max(1, line / 4));
    this.w13N = h3Offset + c.hiddenDim();
    this.kvBytes = LoweredModel.roundUp(c.kvDim(), line) + line;
    this.maxContext = maxContext;
    this.blockMax = blockMax;
    boolean copies = LoweredModel.groupScaledStream(p, weightBits, weightGroup, mxFormat,
        Math.max(c.dim(), Math.max(oK, c.hiddenDim())));
    this.groupScaled = copies && fusion != Fusion.NONE;
    this.groupVectorsEnd = 2 * pad8(c.dim()) + groups(c.dim()) * pad8(qkvN) + groups(oK) * pad8(c.dim())
        + 2 * groups(c.dim()) * pad8(c.hiddenDim()) + groups(c.hiddenDim()) * pad8(c.dim());
    this.channelVectors = copies ? LoweredModel.channelVectorStart(groupVectorsEnd, line) : groupVectorsEnd;
    this.layerVectorElems = channelVectors + (copies ? pad8(qkvN) + 2 * pad8(c.dim()) + 2 * pad8(c.hiddenDim()) : 0);
  }

  int groups(int k) {
    return group > 0 ? (k + group - 1) / group : 1;
  }

  /** The scale vectors a K×N block weight's results use: per group, or one (per channel, group-scaled stream). */
  int scaleVectors(int k) {
    return groupScaled ? 1 : groups(k);
  }

  /** As {@link LoweredModel#split}. */
  KSplit split(int k) {
    return KSplit.of(k, p.maxK(), kTile);
  }

  /** As {@link LoweringLayout#weightSplit}. */
  KSplit weightSplit(int k) {
    return group > 0 && !groupScaled ? KSplit.groups(k, group) : split(k);
  }

  /** The weight-scale operand of a dequantizing {@code scale} program: none when group scales were applied. */
  int channelScales() {
    return group > 0 && !groupScaled ? -1 : 2;
  }

  /** As {@link LoweredModel}'s vector padding ({@code WeightGeometry#padVector}). */
  int pad8(int n) {
    return WeightGeometry.padVector(n, line);
  }

  void normQuantize() {
    xIn();
    normQuantizeRuns();
    dspOut(1, c.dim(), INT8);
  }

  /**
   * The layout-only static scale of {@code site} at {@link #walkLayer} (null: the LM head's input, 1) in a window
   * across layers, whose placements stay from layer to layer; else 1 (within a layer the sites' programs are told
   * apart by their shape).
   */
  final double staticScale(StaticScales.Site site) {
    return site == null || !acrossLayers ? 1 : placeholders.of(site, walkLayer);
  }

  /**
   * The layout-only static scale of {@code site} at {@link #walkLayer} ({@link StaticScales#placeholder}): the constant
   * the lowering's layout-only programs carry, for the runs the walk emits as the lowering's own ({@link #layoutRows}).
   */
  final double layerScale(StaticScales.Site site) {
    return placeholders.of(site, walkLayer);
  }

  void normQuantizeRuns() {
    // with the static input scale the lowering's runs (NormEmitter#normQuantizeRuns) are on the same rows every token:
    // one program, shared as the pairs' are (FeedForwardWalk#normQuantizePair); the dynamic scale row moves
    boolean shared = sharedRuns;
    sharedRuns = shared || epilogue;
    run("rmsnorm", () -> r.kernel(DspKernel.RMSNORM, c.dim(), new int[] {0, 0}, new int[] {0}));
    if (epilogue) {
      double s = staticScale(quantSite);
      run(java.util.List.of("dim static quantize", s), () -> r.quantizeStatic(0, c.dim(), -1,
          LoweringEmitter.half(1 / s), 0, 0, LoweringEmitter.half(s)));
    } else {
      run("dim quantize", () -> r.quantize(0, c.dim(), -1, 0, 0));
    }
    sharedRuns = shared;
  }

  /** The residual after a block GEMM over {@code k}. */
  void residual(int k) {
    residual(k, false);
  }

  /** The residuals with a constant input scale go pinned, as {@link NormEmitter#pinResiduals}. */
  boolean pinResiduals;

  /**
   * As {@link #residual(int)}; {@code constantScale}: the input scale a constant, not a row (the W2 input's static scale:
   * the layer's in a window across layers, {@link #staticScale}, as the lowering's gated feed-forward has it).
   */
  void residual(int k, boolean constantScale) {
    int scaleRow = constantScale ? -1 : 1;
    Short constant = constantScale ? LoweringEmitter.half(staticScale(StaticScales.Site.W2_IN)) : null;
    resultIn(k, c.dim());
    xIn();
    // the lowering's residual runs differ only in the token's scale row, a row base: one rewritten program
    boolean shared = sharedRuns;
    sharedRuns = true;
    if (keepsX) {
      run("residual scale in place " + constant,
          () -> r.scale(0, c.dim(), scaleRow, channelScales(), constant, 4, 4));
      sharedRuns = shared;
      return;
    }
    if (constantScale && pinResiduals && residency != null) {
      // as NormEmitter#pinResiduals: kept in the program memory
      runPinned("residual pinned " + constant, () -> java.util.List.of(r.scale(0, c.dim(), scaleRow, channelScales(),
          constant, 4, 5)));
    } else {
      run("residual scale " + constant, () -> r.scale(0, c.dim(), scaleRow, channelScales(), constant, 4, 5));
    }
    sharedRuns = shared;
    dspOut(1, c.dim(), FP16);
  }

  /** As {@link LoweringEmitter}: x to the DSP unless a one-token block at full holds it there. */
  void xIn() {
    if (!(keepsX && xInDsp)) {
      dspIn(1, c.dim(), FP16);
      xInDsp = keepsX;
    }
  }

  /** {@link LoweringEmitter#resultIn} of a block GEMM over {@code k}: {@code elems} results of one token. */
  void resultIn(int k, int elems) {
    resultIn(k, elems, false);
  }

  /** As above; {@code clear}: the last K chunk's columns read are not the last GEMM's (its N tile holds others). */
  void resultIn(int k, int elems, boolean clear) {
    KSplit ks = weightSplit(k);
    partialsIn(ks, 1, elems, ks.grouped() ? 0 : -1, clear);
  }

  /** The first column of the last N tile of the block GEMMs over {@code n} columns ({@link #gemms}). */
  int lastTileStart(int n, int b) {
    int unit = fusion != Fusion.NONE && b == 4 ? 2 * line : line;
    int tile = Math.max(unit, p.maxN() / unit * unit);
    return (n - 1) / tile * tile;
  }

  /** {@link LoweringEmitter#partialsIn}: one {@code dspin}, or one per chunk and {@code sumPartials}. */
  void partialsIn(KSplit ks, int rows, int elems, int scales) {
    partialsIn(ks, rows, elems, scales, false);
  }

  /** As above; {@code clear}: the last chunk's read touches none of the last GEMM's results. */
  void partialsIn(KSplit ks, int rows, int elems, int scales, boolean clear) {
    if (!ks.combined()) {
      dspIn(rows, elems, INT32, clear ? 0 : RESULTS);
      return;
    }
    int len = elems * rows;
    for (int ci = 0; ci < ks.count(); ci++) {
      dspIn(rows, elems, INT32, clear && ci == ks.count() - 1 ? 0 : RESULTS + ci);
    }
    // two chunks without scales: the lowering's output row is among the program's first three rows, a run parameter
    // base (DspRunParameterizer): one program whichever row it writes
    boolean shared = sharedRuns;
    sharedRuns = shared || ks.count() == 2 && scales < 0;
    run(java.util.List.of("sum partials", ks.count(), len, scales),
        () -> r.sumPartials(0, ks.count(), r.rows(len), len, scales, 0));
    sharedRuns = shared;
  }

  void gemms(int m, int k, int n) {
    gemms(m, k, n, bits, weightSplit(k), sparsity != org.llmnpu.isa.Command.DENSE);
  }

  /** N tiles of a streamed GEMM of N {@code n} at {@code --fusion} other than none ({@link LoweringEmitter#streamTile}). */
  int streamTiles(int n) {
    return (n + streamTile(bits) - 1) / streamTile(bits);
  }

  private int streamTile(int b) {
    return LoweringEmitter.streamTile(p, b == 4);
  }

  /**
   * As {@link #gemms(int, int, int)}, its N tiles {@code [from, to)} only ({@link AttentionWeave#qkvTiles}: chunks
   * outside, the range's tiles inside, the first keeping no X); at {@code --fusion none} only all of them.
   */
  void gemmTiles(int m, int k, int n, int from, int to) {
    if (fusion == Fusion.NONE) {
      if (from != 0 || to < streamTiles(n)) {
        throw new IllegalStateException("tiles " + from + ".." + to + " of " + streamTiles(n) + ": at fusion none all");
      }
      gemms(m, k, n);
      return;
    }
    KSplit ks = weightSplit(k);
    int tile = streamTile(bits);
    int c0 = from * tile;
    int c1 = Math.min(to * tile, n);
    for (int ci = 0; ci < ks.count() && c0 < c1; ci++) {
      resultTag = RESULTS + ci;
      for (int n0 = c0; n0 < c1; n0 += tile) {
        keepX = p.xKeep() && n0 > c0; // as LoweringLayout#keepsX
        streamedGemm(m, ks.length(ci), Math.min(tile, c1 - n0), bits == 4, sparsity != org.llmnpu.isa.Command.DENSE,
            bits == 4 && groupScaled);
      }
    }
    resultTag = RESULTS;
    keepX = false;
  }

  /** As {@link LoweringEmitter#weight} and {@link LoweringEmitter#gemmTiled}: chunks outside, N tiles inside. */
  void gemms(int m, int k, int n, int b, KSplit ks, boolean sparse) {
    if (fusion != Fusion.NONE) {
      // as LoweringEmitter#gemmTiled with streamed weights: chunks outside, N tiles (whole pairs of lines for INT4)
      int streamTile = streamTile(b);
      for (int ci = 0; ci < ks.count(); ci++) {
        resultTag = RESULTS + ci;
        for (int n0 = 0; n0 < n; n0 += streamTile) {
          keepX = p.xKeep() && n0 > 0; // as LoweringLayout#keepsX
          streamedGemm(m, ks.length(ci), Math.min(streamTile, n - n0), b == 4, sparse, b == 4 && groupScaled);
        }
      }
      resultTag = RESULTS;
      keepX = false;
      return;
    }
    int tile = Math.max(line, p.maxN() / line * line);
    if (!stream) {
      weightLoad(k, n, b, ks, sparse);
      for (int ci = 0; ci < ks.count(); ci++) {
        resultTag = RESULTS + ci;
        for (int n0 = 0; n0 < n; n0 += tile) {
          keepX = p.xKeep() && n0 > 0;
          gemm(m, ks.length(ci), Math.min(tile, n - n0), sparse);
        }
      }
      resultTag = RESULTS;
      keepX = false;
      return;
    }
    for (int n0 = 0; n0 < n; n0 += tile) {
      int nn = Math.min(tile, n - n0);
      weightLoad(k, nn, b, ks, sparse);
      for (int ci = 0; ci < ks.count(); ci++) {
        resultTag = RESULTS + ci;
        gemm(m, ks.length(ci), nn, sparse);
      }
      resultTag = RESULTS;
    }
  }

  /** As {@link LoweringEmitter#weight}: 2:4 per chunk a load of its value rows and a load4 of its packed metadata. */
  void weightLoad(int k, int n, int b, KSplit ks, boolean sparse) {
    if (sparse) {
      for (int ci = 0; ci < ks.count(); ci++) {
        int v = SparseRows.values(ks.length(ci));
        load(v, LoweredModel.roundUp(n, line));
        load4(v, SparseRows.metaBytes(n));
      }
    } else if (b == 4) {
      load4(k, LoweredModel.roundUp(n, 2 * line) / 2);
    } else {
      load(k, LoweredModel.roundUp(n, line));
    }
  }
}
