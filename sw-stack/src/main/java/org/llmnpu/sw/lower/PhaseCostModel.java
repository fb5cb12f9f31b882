package org.llmnpu.sw.lower;

import org.llmnpu.isa.CycleModel;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The cycles and DRAM traffic of a step from model shapes alone.
 *
 * <p><b>Exact steps</b> (the lowering's own programs): {@link DecoderLowering} emits the step's commands for the
 * model's layout without weights ({@link LoweredModel#layoutOnly}) into a {@link CommandCostSink} — the same
 * command stream its program builder encodes — which times each command on {@code npu-isa}'s {@link CycleModel}
 * and counts it as the golden simulator does. A command the lowering learns to emit is costed with no second
 * description of the lowering; the tests hold every counter equal to the golden simulator's for every weight format
 * (INT8, INT4 per channel, {@code int4-g32}, {@code s2_4}, MX), K chunks, fusion levels ({@link Fusion}: streamed
 * weights) and a chunked prefill (a prompt longer than maxM: one program per chunk, {@link NpuDecoder#prefill}).
 *
 * <p><b>Extrapolated steps</b> (shapes the lowering cannot lay out: models beyond the NPU's memory) still walk the
 * lowering's command order by hand (the methods below), with two changes a larger NPU needs, both stated in the
 * result: weights are streamed in N tiles of {@code maxN} columns (load tile, GEMM tile; with a fusion level,
 * streamed GEMMs as the lowering emits them) instead of one staging load, and for head dimensions that are a
 * multiple of the line the K cache holds each head contiguous, so the scores GEMV has K = head dim (not kvDim with
 * zero rows). Not done: the lowering itself laying out such models (its whole-block Y and K/V regions exceed the
 * scratchpad), which would retire this walk.
 *
 * <p>Numbers: every NPU counter ({@link PhaseCost#counter}): the cycle counters from the cycle model, the work
 * counters as the golden simulator counts them (DRAM beats with command and DSP-program fetch, DMA bytes,
 * scratchpad lines, MACs executed — a 2:4 GEMM's {@code M·N·2·ceil(K/4)} — partial-sum write-backs, DSP
 * instructions and elements). A step costs every layer it is asked to ({@link #step}: the rest scaled from the last
 * one costed); DSP programs are compiled once per operands.
 */
public final class PhaseCostModel extends CommandCosts {
  /** Bytes of an element a {@code dspin}/{@code dspout} moves, by its format. */
  private static final int INT8 = 1;
  private static final int FP16 = 2;
  private static final int INT32 = 4;
  private final ModelConfig c;
  private final DspRoutines r;
  private final int lanes;
  private final boolean wide;
  /** As {@link BatchedAttention#headMajorKeys}: at full the K rows head-major and each scores GEMV over its window. */
  private final boolean headMajorKeys;
  /** As {@link LoweringEmitter}'s resident x: at full a one-token block keeps x in the DSP. */
  private boolean keepsX;
  private boolean xInDsp;
  private final boolean stream;
  private final int half;
  private final int nq;
  private final int nk;
  private final int hdRows;
  private final int oK;
  private final int qkvN;
  private final int w13N;
  private final int h3Offset;
  private final int kvBytes;
  private final int maxContext;
  private final int blockMax;
  private final int layerVectorElems;
  /** Where a layer's channel vectors of the group-scaled copies start (elements; the block's end without them). */
  private final int channelVectors;
  /** Elements of a layer's vectors before the channel vectors (what the unfused program loads). */
  private final int groupVectorsEnd;
  private final int bits;
  private final int group;
  /** Block weights stream as group-scaled INT4 copies ({@link LoweredModel#groupScaledStream}, a fused level). */
  private final boolean groupScaled;
  private final int sparsity;
  private final int kTile;
  private final boolean extrapolate;
  private final int mxFormat;
  private final Fusion fusion;
  /** The feed-forward's GEMM epilogues run on the PPM ({@link PpmEpilogues#applies}; extrapolated walk). */
  private final boolean epilogue;
  /** The lowering of the model's layout (no weights), built on the first exact step. */
  private DecoderLowering lowering;
  /** Each DSP program's {size, cycles, issued}, shared by the steps. */
  private final java.util.Map<DspProgram, long[]> programCosts = new java.util.HashMap<>();

  /**
   * @param extrapolate false: exactly the lowering's command sequence; true: with the two changes
   *                    for larger shapes (weights streamed in maxN-column tiles, heads contiguous in
   *                    the K cache when the head dimension is a multiple of the line)
   */
  public PhaseCostModel(ModelConfig c, MachineParams p, int maxContext, int blockMax, boolean extrapolate) {
    this(c, p, maxContext, blockMax, extrapolate, 8);
  }

  /** As above for block weights of {@code weightBits} 8 or 4 (INT4 loaded with {@code load4}). */
  public PhaseCostModel(ModelConfig c, MachineParams p, int maxContext, int blockMax, boolean extrapolate,
                        int weightBits) {
    this(c, p, maxContext, blockMax, extrapolate, weightBits, 0, org.llmnpu.isa.Command.DENSE);
  }

  /** The lowering of weight format {@code format} ({@link WeightFormats#NAMES}). */
  public static PhaseCostModel forFormat(ModelConfig c, MachineParams p, int maxContext, int blockMax, String format) {
    return forFormat(c, p, maxContext, blockMax, format, Fusion.NONE);
  }

  /** The lowering of weight format {@code format} at fusion level {@code fusion}. */
  public static PhaseCostModel forFormat(ModelConfig c, MachineParams p, int maxContext, int blockMax, String format,
                                         Fusion fusion) {
    if (!WeightFormats.NAMES.contains(format)) {
      throw new IllegalArgumentException("quant must be one of " + WeightFormats.NAMES + ", got '" + format + "'");
    }
    return new PhaseCostModel(c, p, maxContext, blockMax, false, WeightFormats.bits(format), WeightFormats.group(format),
        WeightFormats.sparsity(format), WeightFormats.mx(format), fusion);
  }

  /**
   * As above with block weights quantized in groups of {@code weightGroup} rows of K (0: per
   * channel) and block GEMMs of N:M mode {@code sparsity} ({@code Command.DENSE} or {@code S2_4}).
   */
  public PhaseCostModel(ModelConfig c, MachineParams p, int maxContext, int blockMax, boolean extrapolate,
                        int weightBits, int weightGroup, int sparsity) {
    this(c, p, maxContext, blockMax, extrapolate, weightBits, weightGroup, sparsity, -1);
  }

  /** As above with MX block weights of {@code loadmx} format {@code mxFormat} (-1: integer weights). */
  public PhaseCostModel(ModelConfig c, MachineParams p, int maxContext, int blockMax, boolean extrapolate,
                        int weightBits, int weightGroup, int sparsity, int mxFormat) {
    this(c, p, maxContext, blockMax, extrapolate, weightBits, weightGroup, sparsity, mxFormat, Fusion.NONE);
  }

  /**
   * As above for the programs of fusion level {@code fusion} ({@link DecoderLowering}): the level the NPU applies
   * ({@link Fusion#appliedOn}: {@link Fusion#NONE} where it cannot stream weights).
   */
  public PhaseCostModel(ModelConfig c, MachineParams p, int maxContext, int blockMax, boolean extrapolate,
                        int weightBits, int weightGroup, int sparsity, int mxFormat, Fusion fusion) {
    super(p);
    fusion = fusion.appliedOn(p, weightBits, sparsity, mxFormat);
    this.fusion = fusion;
    this.chainRuns = fusion == Fusion.FULL;
    this.epilogue = fusion != Fusion.NONE && PpmEpilogues.applies(p, c.dim(), weightGroup, sparsity, mxFormat);
    this.extrapolate = extrapolate;
    this.mxFormat = mxFormat;
    this.c = c;
    this.bits = weightBits;
    this.group = weightGroup;
    this.sparsity = sparsity;
    this.kTile = p.maxK() / p.lineBytes() * p.lineBytes();
    this.lanes = p.dsp().lanes();
    this.r = new DspRoutines(p.dsp(), c.normEps());
    this.half = c.headDim() / 2;
    this.nq = c.heads() * half;
    this.nk = c.kvHeads() * half;
    this.hdRows = r.rows(c.headDim());
    this.wide = extrapolate && c.headDim() % line == 0 && half % lanes == 0;
    this.headMajorKeys = !wide && this.fusion == Fusion.FULL && BatchedAttention.headMajorKeys(c, p, split(c.kvDim()));
    this.stream = extrapolate;
    this.oK = c.heads() * LoweredModel.roundUp(c.headDim(), lanes);
    this.qkvN = c.dim() + 2 * c.kvDim();
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

  private int groups(int k) {
    return group > 0 ? (k + group - 1) / group : 1;
  }

  /** The scale vectors a K×N block weight's results use: per group, or one (per channel, group-scaled stream). */
  private int scaleVectors(int k) {
    return groupScaled ? 1 : groups(k);
  }

  /** As {@link LoweredModel#split}. */
  private KSplit split(int k) {
    return KSplit.of(k, p.maxK(), kTile);
  }

  /** As {@link LoweringLayout#weightSplit}. */
  private KSplit weightSplit(int k) {
    return group > 0 && !groupScaled ? KSplit.groups(k, group) : split(k);
  }

  /** The weight-scale operand of a dequantizing {@code scale} program: none when group scales were applied. */
  private int channelScales() {
    return group > 0 && !groupScaled ? -1 : 2;
  }

  private static int pad8(int n) {
    return LoweredModel.roundUp(n, 8);
  }

  /**
   * Where the cycles of an extrapolated {@link #step} go: "operator / command kind" → {cycles, commands}, each command
   * charged the cycles by which it advanced the step's end (a GEMM's back-end overlaps the commands after it, so a
   * command that waits for it is charged the wait); the rows add up to the step's cycles over the costed layers
   * (layers beyond {@code costedLayers} are not in it).
   */
  public java.util.Map<String, long[]> profile(int tokens, int pos0, int costedLayers) {
    if (!extrapolate) {
      throw new IllegalStateException("profile: only an extrapolated step is profiled by operator "
          + "(CommandKindProfile profiles the lowering's own programs)");
    }
    reset();
    startProfile();
    step(tokens, pos0, costedLayers);
    return profile();
  }

  /** Whether heads are stored contiguous in the K cache (head dim a multiple of the line). */
  public boolean wideHeads() {
    return wide;
  }

  /**
   * A step of {@code tokens} tokens after {@code pos0} stored ones, {@code layers} of the model's
   * layers costed one by one and the rest scaled from the last one (layers are identical in shape).
   */
  public PhaseCost step(int tokens, int pos0, int costedLayers) {
    if (!extrapolate) {
      return lowered(tokens, pos0, costedLayers);
    }
    reset();
    operator("setup");
    command(false);
    dspTable(768 / line);
    load((long) c.heads() * (wide ? c.headDim() : c.kvDim()), line);
    int zeroBytes = c.heads() * hdRows * lanes * 2;
    load(zeroBytes / line, line);
    dspIn(1, zeroBytes / 2, FP16);
    PhaseCost total = null;
    int layers = Math.min(costedLayers, c.layers());
    for (int start = 0; start < tokens; start += blockMax) {
      int n = Math.min(blockMax, tokens - start);
      int pos = pos0 + start;
      keepsX = fusion == Fusion.FULL && n == 1;
      xInDsp = false;
      operator("setup");
      for (int t = 0; t < n; t++) {
        load(1, 2L * c.dim());
      }
      for (int l = 0; l < layers; l++) {
        PhaseCost before = snapshot();
        layer(n, pos, l == 0);
        if (l == layers - 1 && layers < c.layers()) {
          PhaseCost one = snapshot().minus(before);
          total = total == null ? one.scale(c.layers() - layers) : total.plus(one, c.layers() - layers);
        }
      }
      if (start + n == tokens) {
        operator("lm head");
        lmHead(1);
      }
    }
    operator("setup");
    command(false);
    PhaseCost end = snapshot();
    return total == null ? end : end.plus(total, 1);
  }

  /**
   * The exact step: {@link DecoderLowering} emits the step's commands for the model's layout (token ids do not change
   * a command) into a {@link CommandCostSink}, the same stream its program builder encodes.
   */
  private PhaseCost lowered(int tokens, int pos0, int costedLayers) {
    if (lowering == null) {
      LoweredModel layout = LoweredModel.layoutOnly(c, p, maxContext, maxContext, bits, group, sparsity, mxFormat);
      lowering = new DecoderLowering(layout, blockMax, program -> layout.dspPool, fusion);
    }
    int chunk = NpuDecoder.prefillChunk(p);
    if (pos0 == 0 && tokens > chunk) {
      // a chunked prefill (NpuDecoder#prefill): one program per chunk of maxM tokens
      PhaseCost total = null;
      for (int start = 0; start < tokens; start += chunk) {
        PhaseCost part = program(Math.min(chunk, tokens - start), start, costedLayers);
        total = total == null ? part : total.plus(part, 1);
      }
      return total;
    }
    return program(tokens, pos0, costedLayers);
  }

  private PhaseCost program(int tokens, int pos0, int costedLayers) {
    CommandCostSink sink = new CommandCostSink(p, programCosts);
    int layers = Math.max(1, Math.min(costedLayers, c.layers()));
    sink.scaleLayers(layers, c.layers());
    lowering.emit(new int[tokens], pos0, false, sink, layers);
    return sink.cost();
  }

  private void layer(int n, int pos, boolean firstLayer) {
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
    if (pos > 0) {
      load(pos, kvBytes);
      load(pos, kvBytes);
    }
    operator("attention RMSNorm");
    for (int t = 0; t < n; t++) {
      if (feedForwardPairs() && t + 1 < n) {
        normQuantizePair();
        t++;
      } else {
        normQuantize();
      }
    }
    operator("QKV GEMM");
    gemms(n, c.dim(), qkvN);
    operator("QKV scale, RoPE, K/V out");
    int qRows = r.rows(nq);
    int kRows = r.rows(nk);
    if (chainRuns) {
      // as AttentionLowering at full: the block's cos/sin rows in one load
      load(n, 4L * nq);
    }
    for (int t = 0; t < n; t++) {
      if (chainRuns) {
        // the token's cos/sin row first, so that the runs after it join
        dspIn(1, 2L * nq, FP16);
      }
      resultIn(c.dim(), qkvN);
      run("qkv scale", () -> r.scale(0, qkvN, 1, channelScales(), null, -1, 3));
      if (!chainRuns) {
        load(1, 4L * nq);
        dspIn(1, 2L * nq, FP16);
      }
      run("q rope", () -> r.kernel(DspKernel.ROPE, 2 * nq, new int[] {0, qRows, 0, 0}, new int[] {0, 0}));
      run("k rope", () -> r.kernel(DspKernel.ROPE, 2 * nk, new int[] {0, kRows, 0, 0}, new int[] {0, 0}));
      runAll("qkv quantize", () -> r.quantizeRuns(java.util.List.of(
          new DspQuantizer.Vector(0, 2 * nq, -1, 0, 0), new DspQuantizer.Vector(0, 2 * nk, -1, 0, 0),
          new DspQuantizer.Vector(0, c.kvDim(), -1, 0, 0))));
      if (wide) {
        for (int g = 0; g < 2 * c.kvHeads(); g++) {
          dspOut(1, half, INT8);
        }
      } else if (headMajorKeys) {
        // BatchedAttention.keyRowOut: the evens and the odds a half to a line, read back interleaved, written
        dspOut(c.kvHeads(), half, FP16);
        dspOut(c.kvHeads(), half, FP16);
        dspIn(2L * c.kvHeads(), half, FP16);
        dspOut(1, c.kvDim(), INT8);
      } else {
        dspOut(1, c.kvDim(), INT8);
      }
      dspOut(1, 1, FP16);
      dspOut(1, c.kvDim(), INT8);
      dspOut(1, 1, FP16);
    }
    operator("layer vectors, KV cache");
    store(n, kvBytes);
    store(n, kvBytes);
    dspIn(pos + n, 1, FP16);
    dspIn(pos + n, 1, FP16);
    if (fusion == Fusion.FULL) {
      operator("layer vectors, KV cache");
      batchedAttention(n, pos, firstLayer);
    } else {
      for (int t = 0; t < n; t++) {
        attention(pos + t + 1);
      }
    }
    operator("O GEMM");
    gemms(n, oK, c.dim());
    operator("residual, FFN RMSNorm");
    if (!chainRuns) {
      for (int t = 0; t < n; t++) {
        residual(oK);
      }
    }
    if (epilogue) {
      feedForwardThroughPpm(n);
      return;
    }
    for (int t = 0; t < n; t++) {
      feedForwardNorm();
    }
    operator("W1/W3 GEMM");
    gemms(n, c.dim(), w13N);
    operator("SwiGLU");
    // the gate's columns are read beside the last W1/W3 tile's GEMM when that tile holds only up columns
    boolean gateClear = lastTileStart(w13N, bits) >= c.hiddenDim();
    for (int t = 0; t < n; t++) {
      resultIn(c.dim(), c.hiddenDim(), gateClear);
      resultIn(c.dim(), c.hiddenDim());
      run("hidden scale", () -> r.scale(0, c.hiddenDim(), 1, channelScales(), null, -1, 3));
      run("hidden scale", () -> r.scale(0, c.hiddenDim(), 1, channelScales(), null, -1, 3));
      run("swiglu", () -> r.kernel(DspKernel.SWIGLU, c.hiddenDim(), new int[] {0, 0}, new int[] {0}));
      run("hidden quantize", () -> r.quantize(0, c.hiddenDim(), -1, 0, 0));
      dspOut(1, c.hiddenDim(), INT8);
    }
    operator("W2 GEMM");
    gemms(n, c.hiddenDim(), c.dim());
    operator("residual, FFN RMSNorm");
    for (int t = 0; t < n; t++) {
      residual(c.hiddenDim());
    }
  }

  private void lmHead(int count) {
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

  private void attention(int s) {
    scatterQueries();
    // the lowering's groups of heads (LoweringLayout.headGroup): three whenever the DSP's rows hold their
    // probabilities, as on the NPUs this model is compared on and extrapolates to
    for (int h0 = 0; h0 < c.heads(); h0 += DspQuantizer.MAX_VECTORS) {
      int group = Math.min(DspQuantizer.MAX_VECTORS, c.heads() - h0);
      groupProbabilities(h0, group, s);
      for (int i = 0; i < group; i++) {
        int h = h0 + i;
        dspOut(1, s, INT8);
        int first = c.headDim() * (h / c.groupSize());
        int col = first - first / line * line;
        KSplit pv = split(s);
        for (int ci = 0; ci < pv.count(); ci++) {
          resultTag = RESULTS + ci;
          gemm(1, pv.length(ci), col + c.headDim(), false);
        }
        resultTag = RESULTS;
        partialsIn(pv, 1, c.headDim(), -1);
      }
      outputScales(group);
    }
    run("attention quantize", () -> r.quantize(0, oK, -1, 0, 0));
    dspOut(1, oK, INT8);
  }

  private void scatterQueries() {
    if (half % lanes != 0) {
      run("scatter", () -> r.scatter(0, c.heads(), half, 0));
    }
  }

  /** A head group's queries over {@code s} slots: their scores GEMVs, then scale, SoftMax and quantization runs. */
  private void groupProbabilities(int h0, int group, int s) {
    groupProbabilities(group, s, i -> {
      int k = scoreK((h0 + i) / c.groupSize());
      dspOut(half, 1, INT8);
      dspOut(half, 1, INT8);
      KSplit ks = split(k);
      for (int ci = 0; ci < ks.count(); ci++) {
        resultTag = RESULTS + ci;
        for (int m0 = 0; m0 < s; m0 += p.maxM()) {
          gemm(Math.min(p.maxM(), s - m0), ks.length(ci), 1, false);
        }
      }
      resultTag = RESULTS;
      partialsIn(ks, s, 1, -1);
    });
  }

  /** The K of KV head g's scores: its head (wide), its line window (head-major keys) or kvDim. */
  private int scoreK(int g) {
    return wide ? c.headDim() : headMajorKeys ? BatchedAttention.scoreWindowK(c, line, g) : c.kvDim();
  }

  /** As {@code BatchedAttention#headGroupProbabilities}: {@code scoresIn} each query's scores, then the runs. */
  private void groupProbabilities(int group, int s, java.util.function.IntConsumer scoresIn) {
    for (int i = 0; i < group; i++) {
      operator("attention scores");
      scoresIn.accept(i);
    }
    // the group's scores scaled, their SoftMax and the probabilities quantized, in shared runs
    operator("attention scale, SoftMax");
    runAll(java.util.List.of("scores", group, s), () -> scoresPrograms(group, s));
  }

  /**
   * As {@code BatchedAttention#scoresBatched} for the tokens {@code ts .. ts + nb − 1} of a block at {@code pos}: per
   * head group the queries scattered a code a line, per KV head {@code Qᵀ} gathered, {@code Sᵀ} in M chunks scattered
   * a score a line, then per token each query's scores gathered, the runs and the P rows.
   */
  private void scoresBatched(int ts, int nb, int pos) {
    int gs = c.groupSize();
    int queries = gs * nb;
    int sMax = pos + ts + nb;
    int chunk = (int) Math.min(p.maxM(), (long) scoreRows() * lanes / queries);
    for (int h0 = 0; h0 < c.heads(); h0 += DspQuantizer.MAX_VECTORS) {
      int group = Math.min(DspQuantizer.MAX_VECTORS, c.heads() - h0);
      operator("attention scores");
      for (int t = 0; t < nb; t++) {
        if (half % lanes != 0) {
          dspOut(2 * c.heads(), half, FP16);
          dspIn(2 * c.heads(), lanes, FP16);
        }
        for (int i = 0; i < group; i++) {
          dspOut(half, 1, FP16);
          dspOut(half, 1, FP16);
        }
      }
      for (int g = h0 / gs; g <= (h0 + group - 1) / gs; g++) {
        dspIn((long) half * queries, 1, FP16);
        dspIn((long) half * queries, 1, FP16);
        dspOut(half, queries, INT8);
        dspOut(half, queries, INT8);
        for (int m0 = 0; m0 < sMax; m0 += chunk) {
          int mm = Math.min(chunk, sMax - m0);
          gemm(mm, scoreK(g), queries, false);
          dspIn(mm, queries, INT32);
          dspOut((long) mm * queries, 1, FP16);
        }
      }
      for (int t = ts; t < ts + nb; t++) {
        int s = pos + t + 1;
        groupProbabilities(group, s, i -> dspIn(s, 1, FP16));
        for (int i = 0; i < group; i++) {
          dspOut(1, s, INT8);
        }
      }
    }
  }

  /** As {@code LoweringLayout#scoreRows} with the walk's head groups of {@link DspQuantizer#MAX_VECTORS}. */
  private int scoreRows() {
    return Math.max(r.rows(Math.max(maxContext, c.vocabSize())), DspQuantizer.MAX_VECTORS * r.rows(maxContext));
  }

  /** Whether the walk batches the scores as the lowering does where its regions fit ({@code BatchedAttention}). */
  private boolean batchedScores(int n) {
    int queries = c.groupSize() * n;
    return fusion == Fusion.FULL && n >= 2 && BatchedScores.fits(c, p, split(scoreK(0)), queries)
        && 2 * r.rows(half * queries) <= scoreRows() && (long) scoreRows() * lanes >= queries;
  }

  /** A head group's P·V results dequantized (merged as the lowering does). */
  private void outputScales(int group) {
    runAll(java.util.List.of("output scales", group), () -> {
      java.util.List<DspProgram> outputScales = new java.util.ArrayList<>();
      for (int i = 0; i < group; i++) {
        outputScales.add(r.scale(4 * i, hdRows * lanes, 4 * i + 1, -1, (short) 0x3C00, -1, 4 * i + 3));
      }
      return r.merged(outputScales);
    });
  }

  /**
   * As {@link BatchedAttention} ({@code --fusion full}) with the block's tokens in one batch (the stated NPU's DSP
   * holding a probability scale row per query): per token the scores GEMVs and DSP runs of {@link #attention}, each
   * query's probabilities to its P row; per KV head one P·V GEMM over the block's queries; per token the outputs.
   */
  private void batchedAttention(int n, int pos, boolean firstLayer) {
    boolean batched = batchedScores(n);
    if (firstLayer) {
      for (int g = 0; g < c.kvHeads(); g++) {
        load((long) c.groupSize() * n, LoweredModel.roundUp(pos + n, line));
      }
      if (batched) {
        // each KV head's Qᵀ zeroed: its score K rows (head dim wide, else its window or kvDim)
        int rows = 0;
        for (int g = 0; g < c.kvHeads(); g++) {
          rows = Math.max(rows, scoreK(g));
        }
        for (int g = 0; g < c.kvHeads(); g++) {
          // rows as wide as a batch of the block's most tokens (the lowering's batch: the DSP holding their scales)
          load(rows, LoweredModel.roundUp((long) c.groupSize() * blockMax, line));
        }
      }
    }
    if (batched) {
      scoresBatched(0, n, pos);
    }
    for (int t = 0; t < n && !batched; t++) {
      int s = pos + t + 1;
      if (half % lanes != 0) {
        // as BatchedAttention: the query halves to rows of their own through the scratchpad
        dspOut(2 * c.heads(), half, FP16);
        dspIn(2 * c.heads(), lanes, FP16);
      }
      for (int h0 = 0; h0 < c.heads(); h0 += DspQuantizer.MAX_VECTORS) {
        int group = Math.min(DspQuantizer.MAX_VECTORS, c.heads() - h0);
        groupProbabilities(h0, group, s);
        for (int i = 0; i < group; i++) {
          dspOut(1, s, INT8);
        }
      }
    }
    operator("attention P·V GEMM");
    KSplit pv = split(pos + n);
    for (int g = 0; g < c.kvHeads(); g++) {
      int first = c.headDim() * g;
      int queries = c.groupSize() * n;
      for (int ci = 0; ci < pv.count(); ci++) {
        for (int m0 = 0; m0 < queries; m0 += p.maxM()) {
          // KV head g's queries, rows g·queries + m0 .. of K chunk ci's outputs (BatchedAttention#queryRow)
          resultTag = outputRow(ci, g * queries + m0);
          resultRows = Math.min(p.maxM(), queries - m0);
          gemm(Math.min(p.maxM(), queries - m0), pv.length(ci), first % line + c.headDim(), false);
        }
      }
    }
    resultTag = RESULTS;
    resultRows = 1;
    operator("attention outputs");
    for (int t = 0; t < n; t++) {
      // as BatchedAttention#outputs: one-chunk results all in first, so that the groups' runs join
      boolean allIn = !pv.combined();
      int gs = c.groupSize();
      if (allIn) {
        for (int h = 0; h < c.heads(); h++) {
          headOutputIn(pv, h, (h / gs * n + t) * gs + h % gs);
        }
      }
      for (int h0 = 0; h0 < c.heads(); h0 += DspQuantizer.MAX_VECTORS) {
        int group = Math.min(DspQuantizer.MAX_VECTORS, c.heads() - h0);
        for (int i = 0; i < group && !allIn; i++) {
          int h = h0 + i;
          headOutputIn(pv, h, (h / gs * n + t) * gs + h % gs);
        }
        outputScales(group);
      }
      run("attention quantize", () -> r.quantize(0, oK, -1, 0, 0));
      dspOut(1, oK, INT8);
    }
  }

  /** The walk's address of row {@code row} of K chunk ci's P·V outputs ({@link CommandCosts#RESULTS}). */
  private static long outputRow(int ci, long row) {
    return (RESULTS + ci) << 32 | row;
  }

  /** As {@code BatchedAttention#headOutputIn}: query row {@code row}'s P·V result of each K chunk. */
  private void headOutputIn(KSplit pv, int h, int row) {
    if (!pv.combined()) {
      dspIn(1, c.headDim(), INT32, outputRow(0, row));
      return;
    }
    for (int ci = 0; ci < pv.count(); ci++) {
      dspIn(1, c.headDim(), INT32, outputRow(ci, row));
    }
    run(java.util.List.of("sum partials", pv.count(), c.headDim(), -1),
        () -> r.sumPartials(0, pv.count(), r.rows(c.headDim()), c.headDim(), -1, 0));
  }

  /** The DSP runs between a head group's scores and its P·V: scale, SoftMax, quantization (merged as the lowering does). */
  private java.util.List<DspProgram> scoresPrograms(int group, int s) {
    java.util.List<DspQuantizer.Vector> probabilities = new java.util.ArrayList<>();
    java.util.List<DspProgram> scoreScales = new java.util.ArrayList<>();
    java.util.List<DspProgram> softmaxes = new java.util.ArrayList<>();
    for (int i = 0; i < group; i++) {
      scoreScales.add(r.scale(8 * i, s, 1, 2, (short) 0x3C00, -1, 8 * i + 3));
      softmaxes.add(r.kernel(DspKernel.SOFTMAX, s, new int[] {8 * i + 4}, new int[] {8 * i + 5}));
      probabilities.add(new DspQuantizer.Vector(0, s, 1, 0, 0));
    }
    java.util.List<DspProgram> runs = new java.util.ArrayList<>(r.merged(scoreScales));
    runs.addAll(r.mergedKernels(softmaxes));
    runs.addAll(r.quantizeRuns(probabilities));
    return runs;
  }

  private void normQuantize() {
    xIn();
    normQuantizeRuns();
    dspOut(1, c.dim(), INT8);
  }

  private void normQuantizeRuns() {
    run("rmsnorm", () -> r.kernel(DspKernel.RMSNORM, c.dim(), new int[] {0, 0}, new int[] {0}));
    if (epilogue) {
      run("dim static quantize", () -> r.quantizeStatic(0, c.dim(), -1, (short) 0x3C00, 0, 0, (short) 0x3C00));
    } else {
      run("dim quantize", () -> r.quantize(0, c.dim(), -1, 0, 0));
    }
  }

  /**
   * The feed-forward's RMSNorm of a token; at full with the Wo residual before it in the same runs, as
   * {@link LoweringEmitter#residualNormQuantize}.
   */
  private void feedForwardNorm() {
    if (!chainRuns) {
      normQuantize();
      return;
    }
    if (keepsX) {
      residual(oK);
      normQuantize();
      return;
    }
    resultIn(oK, c.dim());
    xIn();
    run("residual scale", () -> r.scale(0, c.dim(), 1, channelScales(), null, 4, 5));
    normQuantizeRuns();
    dspOut(1, c.dim(), FP16);
    dspOut(1, c.dim(), INT8);
  }

  /**
   * Whether the fused feed-forward handles two tokens at a time (as {@link FeedForwardLowering}): at full, when the
   * attention's score rows hold a second token's five vectors.
   */
  private boolean feedForwardPairs() {
    int lanes = p.dsp().lanes();
    int ctxRows = (Math.max(maxContext, c.vocabSize()) + lanes - 1) / lanes;
    int scoreRows = Math.max(ctxRows, DspQuantizer.MAX_VECTORS * ((maxContext + lanes - 1) / lanes));
    return chainRuns && 3 * scoreRows >= 5 * ((Math.max(c.hiddenDim(), c.dim()) + lanes - 1) / lanes);
  }

  /** Two tokens' {@link #normQuantize} in shared runs, as {@link LoweringEmitter#normQuantizePair}. */
  private void normQuantizePair() {
    dspIn(1, c.dim(), FP16);
    dspIn(1, c.dim(), FP16);
    runAll(java.util.List.of("norm pair", epilogue), () -> {
      java.util.List<DspProgram> runs = new java.util.ArrayList<>(r.mergedKernels(java.util.List.of(
          r.kernel(DspKernel.RMSNORM, c.dim(), new int[] {0, 1}, new int[] {2}),
          r.kernel(DspKernel.RMSNORM, c.dim(), new int[] {8, 9}, new int[] {10}))));
      runs.addAll(quantizePair());
      return runs;
    });
    dspOut(1, c.dim(), INT8);
    dspOut(1, c.dim(), INT8);
  }

  /** As {@link LoweringEmitter}'s two dim-wide quantizations in shared runs. */
  private java.util.List<DspProgram> quantizePair() {
    if (epilogue) {
      return r.mergedKernels(java.util.List.of(
          r.quantizeStatic(2, c.dim(), -1, (short) 0x3C00, 3, 1, (short) 0x3C00),
          r.quantizeStatic(10, c.dim(), -1, (short) 0x3C00, 11, 9, (short) 0x3C00)));
    }
    return r.quantizeRuns(java.util.List.of(new DspQuantizer.Vector(2, c.dim(), -1, 3, 1),
        new DspQuantizer.Vector(10, c.dim(), -1, 11, 9)));
  }

  /** Two tokens' {@link #feedForwardNorm} in shared runs, as {@link LoweringEmitter#residualNormQuantizePair}. */
  private void feedForwardNormPair() {
    for (int i = 0; i < 2; i++) {
      resultIn(oK, c.dim());
      dspIn(1, c.dim(), FP16);
    }
    runAll(java.util.List.of("feed-forward norm pair", epilogue), () -> {
      java.util.List<DspProgram> scales = new java.util.ArrayList<>();
      java.util.List<DspProgram> norms = new java.util.ArrayList<>();
      for (int i = 0; i < 2; i++) {
        int base = 8 * i;
        scales.add(r.scale(base, c.dim(), base + 1, channelScales(), null, base + 4, base + 5));
        norms.add(r.kernel(DspKernel.RMSNORM, c.dim(), new int[] {base, base + 1}, new int[] {base + 2}));
      }
      java.util.List<DspProgram> runs = new java.util.ArrayList<>(r.mergedKernels(scales));
      runs.addAll(r.mergedKernels(norms));
      runs.addAll(quantizePair());
      return runs;
    });
    for (int i = 0; i < 2; i++) {
      dspOut(1, c.dim(), FP16);
      dspOut(1, c.dim(), INT8);
    }
  }

  /** As {@link FeedForwardLowering}'s PPM epilogue ({@link PpmEpilogues}): gate and up through the PPM, streamed. */
  private void feedForwardThroughPpm(int n) {
    boolean pairs = feedForwardPairs();
    for (int t = 0; t < n; t++) {
      if (pairs && t + 1 < n && !keepsX) {
        feedForwardNormPair();
        t++;
      } else {
        feedForwardNorm();
      }
    }
    operator("W1/W3 GEMM");
    int unit = bits == 4 ? 2 * line : line;
    int tile = Math.max(unit, p.maxN() / unit * unit);
    boolean sparse = sparsity != org.llmnpu.isa.Command.DENSE;
    ppmLoad(66, 2);
    for (int j0 = 0; j0 < c.hiddenDim(); j0 += tile) {
      int nn = Math.min(tile, c.hiddenDim() - j0);
      ppmLoad(nn, org.llmnpu.isa.Command.PPM_RECORD_BYTES);
      streamedPpmGemm(n, c.dim(), nn, bits == 4, sparse);
    }
    // up: INT32 results without the PPM
    for (int j0 = 0; j0 < c.hiddenDim(); j0 += tile) {
      streamedGemm(n, c.dim(), Math.min(tile, c.hiddenDim() - j0), bits == 4, sparse);
    }
    operator("SwiGLU");
    for (int t = 0; t < n; t += pairs && t + 1 < n ? 2 : 1) {
      int pair = pairs && t + 1 < n ? 2 : 1;
      for (int i = 0; i < pair; i++) {
        dspIn(1, c.hiddenDim(), INT8);
        dspIn(1, c.hiddenDim(), INT32);
      }
      runAll(java.util.List.of("feed-forward DSP runs", pair), () -> {
        java.util.List<DspProgram> ups = new java.util.ArrayList<>();
        java.util.List<DspProgram> silus = new java.util.ArrayList<>();
        java.util.List<DspQuantizer.Vector> codes = new java.util.ArrayList<>();
        for (int i = 0; i < pair; i++) {
          int base = 8 * i;
          ups.add(r.scale(base, c.hiddenDim(), base + 1, base + 2, null, -1, base + 4));
          silus.add(r.scale(base, c.hiddenDim(), -1, -1, (short) 0x3C00, -1, base + 3));
          codes.add(new DspQuantizer.Vector(base, c.hiddenDim(), base + 1, base, base));
        }
        java.util.List<DspProgram> runs = new java.util.ArrayList<>(r.merged(ups));
        runs.addAll(r.merged(silus));
        runs.addAll(r.quantizeRuns(codes));
        return runs;
      });
      for (int i = 0; i < pair; i++) {
        dspOut(1, c.hiddenDim(), INT8);
      }
    }
    operator("W2 GEMM");
    gemms(n, c.hiddenDim(), c.dim());
    operator("residual, FFN RMSNorm");
    for (int t = 0; t < n; t++) {
      residual(c.hiddenDim());
    }
  }

  /** The residual after a block GEMM over {@code k}. */
  private void residual(int k) {
    resultIn(k, c.dim());
    xIn();
    if (keepsX) {
      run("residual scale in place", () -> r.scale(0, c.dim(), 1, channelScales(), null, 4, 4));
      return;
    }
    run("residual scale", () -> r.scale(0, c.dim(), 1, channelScales(), null, 4, 5));
    dspOut(1, c.dim(), FP16);
  }

  /** As {@link LoweringEmitter}: x to the DSP unless a one-token block at full holds it there. */
  private void xIn() {
    if (!(keepsX && xInDsp)) {
      dspIn(1, c.dim(), FP16);
      xInDsp = keepsX;
    }
  }

  /** {@link LoweringEmitter#resultIn} of a block GEMM over {@code k}: {@code elems} results of one token. */
  private void resultIn(int k, int elems) {
    resultIn(k, elems, false);
  }

  /** As above; {@code clear}: the last K chunk's columns read are not the last GEMM's (its N tile holds others). */
  private void resultIn(int k, int elems, boolean clear) {
    KSplit ks = weightSplit(k);
    partialsIn(ks, 1, elems, ks.grouped() ? 0 : -1, clear);
  }

  /** The first column of the last N tile of the block GEMMs over {@code n} columns ({@link #gemms}). */
  private int lastTileStart(int n, int b) {
    int unit = fusion != Fusion.NONE && b == 4 ? 2 * line : line;
    int tile = Math.max(unit, p.maxN() / unit * unit);
    return (n - 1) / tile * tile;
  }

  /** {@link LoweringEmitter#partialsIn}: one {@code dspin}, or one per chunk and {@code sumPartials}. */
  private void partialsIn(KSplit ks, int rows, int elems, int scales) {
    partialsIn(ks, rows, elems, scales, false);
  }

  /** As above; {@code clear}: the last chunk's read touches none of the last GEMM's results. */
  private void partialsIn(KSplit ks, int rows, int elems, int scales, boolean clear) {
    if (!ks.combined()) {
      dspIn(rows, elems, INT32, clear ? 0 : RESULTS);
      return;
    }
    int len = elems * rows;
    for (int ci = 0; ci < ks.count(); ci++) {
      dspIn(rows, elems, INT32, clear && ci == ks.count() - 1 ? 0 : RESULTS + ci);
    }
    run(java.util.List.of("sum partials", ks.count(), len, scales),
        () -> r.sumPartials(0, ks.count(), r.rows(len), len, scales, 0));
  }

  private void gemms(int m, int k, int n) {
    gemms(m, k, n, bits, weightSplit(k), sparsity != org.llmnpu.isa.Command.DENSE);
  }

  /** As {@link LoweringEmitter#weight} and {@link LoweringEmitter#gemmTiled}: chunks outside, N tiles inside. */
  private void gemms(int m, int k, int n, int b, KSplit ks, boolean sparse) {
    if (fusion != Fusion.NONE) {
      // as LoweringEmitter#gemmTiled with streamed weights: chunks outside, N tiles (whole pairs of lines for INT4)
      int unit = b == 4 ? 2 * line : line;
      int streamTile = Math.max(unit, p.maxN() / unit * unit);
      for (int ci = 0; ci < ks.count(); ci++) {
        resultTag = RESULTS + ci;
        for (int n0 = 0; n0 < n; n0 += streamTile) {
          streamedGemm(m, ks.length(ci), Math.min(streamTile, n - n0), b == 4, sparse, b == 4 && groupScaled);
        }
      }
      resultTag = RESULTS;
      return;
    }
    int tile = Math.max(line, p.maxN() / line * line);
    if (!stream) {
      weightLoad(k, n, b, ks, sparse);
      for (int ci = 0; ci < ks.count(); ci++) {
        resultTag = RESULTS + ci;
        for (int n0 = 0; n0 < n; n0 += tile) {
          gemm(m, ks.length(ci), Math.min(tile, n - n0), sparse);
        }
      }
      resultTag = RESULTS;
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
  private void weightLoad(int k, int n, int b, KSplit ks, boolean sparse) {
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
