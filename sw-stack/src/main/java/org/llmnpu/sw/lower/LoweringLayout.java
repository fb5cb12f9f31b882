package org.llmnpu.sw.lower;

import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.model.ModelConfig;

/**
 * Where the lowered decoder keeps its working data: scratchpad regions (bytes, line-aligned) and
 * Vector DSP buffer regions (rows), sized once for a block of at most {@code blockMax} tokens and
 * {@code maxContext} cache slots (static shapes). The constructor names the first resource that
 * does not fit.
 */
final class LoweringLayout {
  final LoweredModel m;
  final ModelConfig c;
  final MachineParams p;
  final DspRoutines r;
  final int lanes;
  final int line;
  final int blockMax;
  /** Whether the weights stream from memory (no staging region). */
  private final boolean streamed;
  final int half;
  final int nq;
  final int nk;
  /** {@link LoweredModel#qSpan}, {@link LoweredModel#kSpan}: nq and nk padded to whole DSP rows. */
  final int qSpan;
  final int kSpan;
  /** Scratchpad bytes of one slot's cos/sin row (FP16 cos then sin, {@link #qSpan} each), line-padded. */
  final int ropeRowBytes;
  final int hdRows;
  // scratchpad (bytes)
  private int spadNext;
  final int sXR;
  final int xrStride;
  final int sXS;
  final int xsStride;
  final int sXO;
  final int xoStride;
  final int sWT;
  final int sY;
  final int yStride;
  final int sKC;
  final int sVC;
  final int sWQ;
  final int wqBytes;
  final int sYS;
  final int sXP;
  final int sYO;
  final int sVEC;
  final int sZERO;
  final int zeroBytes;
  final int sLOG;
  // DSP buffer (rows)
  private int dspNext;
  final int rX;
  final int rX2;
  final int rG1;
  final int rG2;
  final int rXN;
  final int rXQ;
  final int rDX;
  final int rDO;
  final int rDH;
  final int rAcc;
  final int rAcc3;
  final int rWsQkv;
  final int rWsO;
  final int rWs1;
  final int rWs3;
  final int rWs2;
  final int rQkv;
  final int rCs;
  final int rQ;
  final int rK;
  final int rQQ;
  final int rDQ;
  final int rKQ;
  final int rDK;
  final int rVQ;
  final int rDV;
  final int rQS;
  final int rSc;
  final int rSc2;
  final int rP;
  final int rPQ;
  final int rDKV;
  final int rDVV;
  /**
   * A token's V-scale bound, y then f ({@link ValueScaleBound#tokenProgram}), a broadcast row each: the SwiGLU rows
   * {@link #rSw}, free during the attention.
   */
  final int rBound;
  final int rDP;
  final int rO;
  final int rOF;
  final int rOQ;
  final int rGate;
  final int rUp;
  final int rSw;
  final int ctxRows;
  /** Staging rows of the K-chunk partials ({@link KSplit}); none when no GEMM is split. */
  final int rPart;
  /**
   * A second token's DSP rows for the RMSNorms and the fused feed-forward's runs of two tokens at a time
   * ({@code --fusion full}): the attention's score and probability rows ({@code rSc}, {@code rSc2}, {@code rP},
   * consecutive; free outside the attention's score runs, and the LM head writes them before it reads them) when they
   * hold five vectors of max(hidden, dim); else −1.
   */
  final int rPair;
  /** Heads whose probabilities are quantized in one run (1..3, as many as the DSP's rows hold). */
  final int headGroup;
  /** Rows of each of {@link #rSc}, {@link #rSc2} and {@link #rP}. */
  final int scoreRows;
  /** K chunk of a GEMM whose K exceeds maxK: the largest multiple of the line not above maxK. */
  final int kTile;
  final KSplit scoreSplit;
  final KSplit pvSplit;
  /** Bytes between the Y regions of consecutive K chunks (block GEMMs, scores, P·V). */
  final long yChunkBytes;
  final long ysChunkBytes;
  final long yoChunkBytes;

  /**
   * @param streamed the block weights and the LM head stream from memory into the array ({@code gemm wStream=1}):
   *                 no weight staging region
   */
  LoweringLayout(LoweredModel model, int blockMax, boolean streamed) {
    this(model, blockMax, streamed, 0, 0);
  }

  /**
   * A second token block's buffers ({@link BlockPair}): every region of {@code first}'s kind placed after all of
   * {@code first}'s (the regions its emitters added too), so two blocks' commands may interleave; the constructor names
   * the first resource that does not fit both.
   */
  LoweringLayout(LoweringLayout first) {
    this(first.m, first.blockMax, first.streamed, first.spadNext, first.dspNext);
  }

  private LoweringLayout(LoweredModel model, int blockMax, boolean streamed, int spadBase, int dspBase) {
    this.spadNext = spadBase;
    this.dspNext = dspBase;
    this.streamed = streamed;
    this.m = model;
    this.c = model.config();
    this.p = model.machine();
    this.lanes = p.dsp().lanes();
    this.line = p.lineBytes();
    this.r = new DspRoutines(p.dsp(), c.normEps());
    this.half = c.headDim() / 2;
    this.nq = c.heads() * half;
    this.nk = c.kvHeads() * half;
    this.qSpan = model.qSpan;
    this.kSpan = model.kSpan;
    this.ropeRowBytes = LoweredModel.roundUp(4 * qSpan, line);
    this.hdRows = r.rows(c.headDim());
    if (blockMax < 1 || blockMax > p.maxM()) {
      throw new IllegalArgumentException("blockMax must be in 1.." + p.maxM() + " (maxM), got " + blockMax);
    }
    this.blockMax = blockMax;
    if (p.maxK() < line) {
      throw new IllegalArgumentException("maxK (" + p.maxK() + ") must be at least the line (" + line
          + " bytes): K chunks start at line-aligned operands");
    }
    kTile = p.maxK() / line * line;
    scoreSplit = split(c.kvDim());
    pvSplit = split(model.maxContext());
    KSplit[] blockSplits = {weightSplit(c.dim()), weightSplit(m.oK), weightSplit(c.hiddenDim()), split(c.dim())};
    int[] blockElems = {Math.max(m.qkvN, c.hiddenDim()), c.dim(), c.dim(), c.vocabSize()};
    int chunks = 1;
    int partRows = 0;
    for (int i = 0; i < blockSplits.length; i++) {
      chunks = Math.max(chunks, blockSplits[i].count());
      if (blockSplits[i].combined()) {
        partRows = Math.max(partRows, blockSplits[i].count() * r.rows(blockElems[i]));
      }
    }
    if (scoreSplit.combined()) {
      partRows = Math.max(partRows, scoreSplit.count() * r.rows(model.maxContext()));
    }
    if (pvSplit.combined()) {
      partRows = Math.max(partRows, pvSplit.count() * hdRows);
    }
    for (int g = 0; g < c.kvHeads(); g++) {
      int n = c.headDim() * g % line + c.headDim();
      if (n > p.maxN()) {
        throw new IllegalArgumentException("the P·V GEMM of KV head " + g + " needs N = " + n + " but the NPU's maxN is "
            + p.maxN());
      }
    }
    xrStride = LoweredModel.roundUp(2L * c.dim(), line);
    sXR = spad((long) blockMax * xrStride);
    xsStride = LoweredModel.roundUp(Math.max(c.dim(), c.hiddenDim()), line);
    sXS = spad((long) blockMax * xsStride);
    xoStride = LoweredModel.roundUp(m.oK, line);
    sXO = spad((long) blockMax * xoStride);
    long wt = Math.max(Math.max((long) m.weightRows(c.dim()) * m.spadStride(m.qkvN),
        (long) m.weightRows(m.oK) * m.spadStride(c.dim())), Math.max((long) m.weightRows(c.dim()) * m.spadStride(m.w13N),
        Math.max((long) m.weightRows(c.hiddenDim()) * m.spadStride(c.dim()),
            (long) c.dim() * LoweredModel.roundUp(c.vocabSize(), line))));
    sWT = spad(streamed ? 0 : wt);
    yStride = LoweredModel.roundUp(4L * Math.max(Math.max(m.qkvN, m.w13N), c.vocabSize()), line);
    yChunkBytes = (long) blockMax * yStride;
    sY = spad(yChunkBytes * chunks);
    sKC = spad((long) model.maxContext() * m.kvBytes);
    sVC = spad((long) model.maxContext() * m.kvBytes);
    wqBytes = c.kvDim() * line;
    sWQ = spad((long) c.heads() * wqBytes);
    ysChunkBytes = (long) model.maxContext() * line;
    sYS = spad(ysChunkBytes * scoreSplit.count());
    sXP = spad(model.maxContext());
    yoChunkBytes = LoweredModel.roundUp(4L * (c.headDim() + line), line);
    sYO = spad(yoChunkBytes * pvSplit.count());
    sVEC = spad(Math.max(2L * m.layerVectorElems, Math.max(2L * (m.vLm + c.vocabSize() + 8), m.ropeStride)));
    zeroBytes = c.heads() * hdRows * lanes * 2;
    sZERO = spad(zeroBytes);
    sLOG = spad(2L * c.vocabSize());
    if (spadNext > p.spadBytes()) {
      throw new IllegalArgumentException("the lowering needs " + spadNext + " scratchpad bytes (blockMax " + blockMax
          + ", maxContext " + model.maxContext() + ") but the NPU has " + p.spadBytes());
    }
    ctxRows = r.rows(Math.max(model.maxContext(), c.vocabSize()));
    int dimRows = r.rows(c.dim());
    rX = dsp(dimRows);
    rX2 = dsp(dimRows);
    rG1 = dsp(dimRows);
    rG2 = dsp(dimRows);
    rXN = dsp(dimRows);
    rXQ = dsp(r.rows(Math.max(c.dim(), c.hiddenDim())));
    rDX = dsp(blockMax);
    rDO = dsp(blockMax);
    rDH = dsp(blockMax);
    rAcc = dsp(r.rows(Math.max(m.qkvN, Math.max(c.hiddenDim(), c.dim()))));
    rAcc3 = dsp(r.rows(c.hiddenDim()));
    rWsQkv = dsp(m.groups(c.dim()) * r.rows(m.qkvN));
    rWsO = dsp(m.groups(m.oK) * dimRows);
    rWs1 = dsp(m.groups(c.dim()) * r.rows(c.hiddenDim()));
    rWs3 = dsp(m.groups(c.dim()) * r.rows(c.hiddenDim()));
    rWs2 = dsp(m.groups(c.hiddenDim()) * dimRows);
    rQkv = dsp(r.rows(m.qkvN));
    rCs = dsp(2 * r.rows(nq));
    rQ = dsp(2 * r.rows(nq));
    rK = dsp(2 * r.rows(nk));
    rQQ = dsp(blockMax * 2 * r.rows(nq));
    rDQ = dsp(blockMax);
    rKQ = dsp(2 * r.rows(nk));
    rDK = dsp(1);
    rVQ = dsp(r.rows(c.kvDim()));
    rDV = dsp(1);
    rQS = dsp(2 * c.heads());

    rDKV = dsp(r.rows(model.maxContext()));
    rDVV = dsp(r.rows(model.maxContext()));
    rO = dsp(c.heads() * hdRows);
    rOF = dsp(c.heads() * hdRows);
    rOQ = dsp(c.heads() * hdRows);
    rGate = dsp(r.rows(c.hiddenDim()));
    rUp = dsp(r.rows(c.hiddenDim()));
    rSw = dsp(r.rows(c.hiddenDim()));
    // the SwiGLU rows are free during the attention: they hold a token's V-scale bound there
    rBound = r.rows(c.hiddenDim()) >= ValueScaleBound.ROWS ? rSw : dsp(ValueScaleBound.ROWS);
    rPart = dsp(partRows);
    // the scores and probabilities of up to three heads at once (their DSP programs share runs), as many as fit
    int sRows = r.rows(model.maxContext());
    int group = DspQuantizer.MAX_VECTORS;
    while (group > 1 && dspNext + 3 * Math.max(ctxRows, group * sRows) + group * sRows + group > p.dsp().rows()) {
      group--;
    }
    headGroup = group;
    scoreRows = Math.max(ctxRows, group * sRows);
    rSc = dsp(Math.max(ctxRows, group * sRows));
    rSc2 = dsp(Math.max(ctxRows, group * sRows));
    rP = dsp(Math.max(ctxRows, group * sRows));
    rPQ = dsp(group * sRows);
    rDP = dsp(group);
    rPair = rPQ - rSc >= 5 * r.rows(Math.max(c.hiddenDim(), c.dim())) ? rSc : -1;
    if (dspNext > p.dsp().rows()) {
      throw new IllegalArgumentException("the lowering needs " + dspNext + " DSP buffer rows (blockMax " + blockMax
          + ", maxContext " + model.maxContext() + ") but the DSP has " + p.dsp().rows());
    }
  }

  /** The K chunks of an activation GEMM or an INT8 per-channel weight (the LM head). */
  KSplit split(int k) {
    return m.split(k);
  }

  /** The K chunks of a block weight: its quantization groups, or as {@link #split}. */
  KSplit weightSplit(int k) {
    return m.weightGroup > 0 ? KSplit.groups(k, m.weightGroup) : split(k);
  }

  private int spad(long bytes) {
    int at = spadNext;
    spadNext = LoweredModel.roundUp(at + bytes, line);
    return at;
  }

  private int dsp(int rows) {
    int at = dspNext;
    dspNext += rows;
    return at;
  }

  /**
   * A scratchpad region of {@code bytes} for a part of the lowering sized after the constructor ({@code what} names
   * it), checked against the NPU's scratchpad like the constructor's regions.
   */
  int spadRegion(long bytes, String what) {
    int at = spad(bytes);
    if (spadNext > p.spadBytes()) {
      throw new IllegalArgumentException("the lowering needs " + spadNext + " scratchpad bytes (blockMax " + blockMax
          + ", maxContext " + m.maxContext() + ", with " + what + ") but the NPU has " + p.spadBytes());
    }
    return at;
  }

  /** As {@link #spadRegion}, {@code rows} rows of the DSP buffer. */
  int dspRegion(int rows, String what) {
    int at = dsp(rows);
    if (dspNext > p.dsp().rows()) {
      throw new IllegalArgumentException("the lowering needs " + dspNext + " DSP buffer rows (blockMax " + blockMax
          + ", maxContext " + m.maxContext() + ", with " + what + ") but the DSP has " + p.dsp().rows());
    }
    return at;
  }

  int spadBytesUsed() {
    return spadNext;
  }

  int dspRowsUsed() {
    return dspNext;
  }

  /**
   * A GEMM's {@code xKeep}: 1 for an N tile after the first of the same X ({@code laterTile}, no other GEMM between) on
   * an NPU that keeps its X buffer ({@code MachineParams.xKeep}), else 0.
   */
  long keepsX(boolean laterTile) {
    return p.xKeep() && laterTile ? 1 : 0;
  }
}
