package org.llmnpu.sw.lower;

import java.util.function.ToLongFunction;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.numerics.fp16.Fp16;
import org.llmnpu.sw.model.ModelConfig;

/**
 * Lowers one step of a LLaMA decoder (a prefill of P tokens, or one decode token) to one NPU
 * program for a {@link LoweredModel}: embedding rows by DMA, per layer RMSNorm → INT8 → fused
 * QKV GEMM → dequantize → RoPE → K/V appended to the cache → per head scores GEMV (K·q) →
 * SoftMax → P·V GEMM → Wo GEMM + residual → RMSNorm → fused W1|W3 GEMM → SiLU·gate → W2 GEMM +
 * residual; final RMSNorm and the LM head; FP16 logits stored to memory.
 *
 * <p><b>Integer path.</b> Every GEMM is INT8 × INT8 → INT32 on the array; everything else is FP16
 * on the Vector DSP. Activation scales are <i>dynamic</i>: each GEMM input vector (per token; per
 * head for the attention probabilities) is quantized on the DSP with its own absmax scale
 * ({@link DspRoutines#quantize}), because a tiny model's activations vary too much from token
 * to token for one calibrated scale, and the DSP computes an absmax in a few dozen cycles.
 * Weight scales are static (per output channel, from the weights). The K and V cache hold INT8
 * codes with one dynamic scale per token (of all KV heads); the V scale is folded into the
 * probabilities before they are quantized ({@code p'_j = p_j · s_v,j}), so P·V stays one integer
 * GEMM. Tokens are processed in blocks of at most {@code blockMax} (GEMM M).
 *
 * <p><b>Static shapes.</b> Buffers are sized once for {@code maxContext} and a block; a program
 * is specialized to its step's lengths (the command stream carries them), attention covers
 * exactly the stored slots and the new ones (causal, no masked work).
 */
public final class DecoderLowering {
  private final LoweredModel m;
  private final ModelConfig c;
  private final MachineParams p;
  private final DspRoutines r;
  private final int lanes;
  private final int line;
  private final int blockMax;
  private final int half;
  private final int nq;
  private final int nk;
  private final int hdRows;
  // scratchpad (bytes)
  private int spadNext;
  private final int sXR;
  private final int xrStride;
  private final int sXS;
  private final int xsStride;
  private final int sXO;
  private final int xoStride;
  private final int sWT;
  private final int sY;
  private final int yStride;
  private final int sKC;
  private final int sVC;
  private final int sWQ;
  private final int wqBytes;
  private final int sYS;
  private final int sXP;
  private final int sYO;
  private final int sVEC;
  private final int sZERO;
  private final int zeroBytes;
  private final int sLOG;
  // DSP buffer (rows)
  private int dspNext;
  private final int rX;
  private final int rX2;
  private final int rG1;
  private final int rG2;
  private final int rXN;
  private final int rXQ;
  private final int rDX;
  private final int rDO;
  private final int rDH;
  private final int rAcc;
  private final int rAcc3;
  private final int rWsQkv;
  private final int rWsO;
  private final int rWs1;
  private final int rWs3;
  private final int rWs2;
  private final int rQkv;
  private final int rCs;
  private final int rQ;
  private final int rK;
  private final int rQQ;
  private final int rDQ;
  private final int rKQ;
  private final int rDK;
  private final int rVQ;
  private final int rDV;
  private final int rQS;
  private final int rSc;
  private final int rSc2;
  private final int rP;
  private final int rPQ;
  private final int rDKV;
  private final int rDVV;
  private final int rDP;
  private final int rO;
  private final int rOF;
  private final int rOQ;
  private final int rGate;
  private final int rUp;
  private final int rSw;
  private final int ctxRows;
  private final ToLongFunction<DspProgram> pool;
  private Program.Builder b;

  /**
   * @param pool places a DSP program in external memory and returns its address (the same program
   *             may be placed once and run many times)
   */
  public DecoderLowering(LoweredModel model, int blockMax, ToLongFunction<DspProgram> pool) {
    this.m = model;
    this.c = model.config();
    this.p = model.machine();
    this.pool = pool;
    this.lanes = p.dsp().lanes();
    this.line = p.lineBytes();
    this.r = new DspRoutines(lanes, c.normEps());
    this.half = c.headDim() / 2;
    this.nq = c.heads() * half;
    this.nk = c.kvHeads() * half;
    this.hdRows = r.rows(c.headDim());
    if (blockMax < 1 || blockMax > p.maxM()) {
      throw new IllegalArgumentException("blockMax must be in 1.." + p.maxM() + " (maxM), got " + blockMax);
    }
    this.blockMax = blockMax;
    int maxK = Math.max(Math.max(c.dim(), m.oK), Math.max(c.hiddenDim(), Math.max(c.kvDim(), model.maxContext())));
    if (maxK > p.maxK()) {
      throw new IllegalArgumentException("a GEMM of this model needs K = " + maxK + " but the NPU's maxK is " + p.maxK()
          + " (K tiling is not implemented; lower maxContext or use a larger NPU)");
    }
    xrStride = LoweredModel.roundUp(2L * c.dim(), line);
    sXR = spad((long) blockMax * xrStride);
    xsStride = LoweredModel.roundUp(Math.max(c.dim(), c.hiddenDim()), line);
    sXS = spad((long) blockMax * xsStride);
    xoStride = LoweredModel.roundUp(m.oK, line);
    sXO = spad((long) blockMax * xoStride);
    long wt = Math.max(Math.max((long) c.dim() * m.spadStride(m.qkvN),
        (long) m.oK * m.spadStride(c.dim())), Math.max((long) c.dim() * m.spadStride(m.w13N),
        Math.max((long) c.hiddenDim() * m.spadStride(c.dim()),
            (long) c.dim() * LoweredModel.roundUp(c.vocabSize(), line))));
    sWT = spad(wt);
    yStride = LoweredModel.roundUp(4L * Math.max(Math.max(m.qkvN, m.w13N), c.vocabSize()), line);
    sY = spad((long) blockMax * yStride);
    sKC = spad((long) model.maxContext() * m.kvBytes);
    sVC = spad((long) model.maxContext() * m.kvBytes);
    wqBytes = c.kvDim() * line;
    sWQ = spad((long) c.heads() * wqBytes);
    sYS = spad((long) model.maxContext() * line);
    sXP = spad(model.maxContext());
    sYO = spad(4L * (c.headDim() + line));
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
    rWsQkv = dsp(r.rows(m.qkvN));
    rWsO = dsp(dimRows);
    rWs1 = dsp(r.rows(c.hiddenDim()));
    rWs3 = dsp(r.rows(c.hiddenDim()));
    rWs2 = dsp(dimRows);
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
    rSc = dsp(ctxRows);
    rSc2 = dsp(ctxRows);
    rP = dsp(ctxRows);
    rPQ = dsp(r.rows(model.maxContext()));
    rDKV = dsp(r.rows(model.maxContext()));
    rDVV = dsp(r.rows(model.maxContext()));
    rDP = dsp(1);
    rO = dsp(c.heads() * hdRows);
    rOF = dsp(c.heads() * hdRows);
    rOQ = dsp(c.heads() * hdRows);
    rGate = dsp(r.rows(c.hiddenDim()));
    rUp = dsp(r.rows(c.hiddenDim()));
    rSw = dsp(r.rows(c.hiddenDim()));
    if (dspNext > p.dsp().rows()) {
      throw new IllegalArgumentException("the lowering needs " + dspNext + " DSP buffer rows (blockMax " + blockMax
          + ", maxContext " + model.maxContext() + ") but the DSP has " + p.dsp().rows());
    }
  }

  /**
   * The largest block (tokens per GEMM, at most {@code upTo} and maxM) whose buffers fit the
   * scratchpad and the DSP; the lowering's own error when not even one token fits.
   */
  public static int largestBlock(LoweredModel model, int upTo) {
    for (int block = Math.min(upTo, model.machine().maxM()); block > 1; block--) {
      try {
        new DecoderLowering(model, block, p -> 0);
        return block;
      } catch (IllegalArgumentException e) {
        // try a smaller block
      }
    }
    new DecoderLowering(model, 1, p -> 0);
    return 1;
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

  /** Scratchpad bytes the lowering uses. */
  public int spadBytesUsed() {
    return spadNext;
  }

  /** DSP buffer rows the lowering uses. */
  public int dspRowsUsed() {
    return dspNext;
  }

  /**
   * The program of one step: {@code tokens} at positions {@code pos0, pos0 + 1, …} (the cache holds
   * slots {@code [0, pos0)}); logits of token i go to logits row i when {@code allLogits}, else
   * only the last token's, to row 0.
   */
  public Program step(int[] tokens, int pos0, boolean allLogits) {
    if (tokens.length < 1 || tokens.length > m.maxStepTokens) {
      throw new IllegalArgumentException("a step takes 1.." + m.maxStepTokens + " tokens, got " + tokens.length);
    }
    if (pos0 < 0 || pos0 + tokens.length > m.maxContext()) {
      throw new IllegalArgumentException("positions " + pos0 + ".." + (pos0 + tokens.length - 1)
          + " exceed the cache of " + m.maxContext() + " slots");
    }
    for (int t : tokens) {
      if (t < 0 || t >= c.vocabSize()) {
        throw new IllegalArgumentException("token " + t + " is outside the vocabulary 0.." + (c.vocabSize() - 1));
      }
    }
    b = Program.builder();
    b.dspTab(m.tables);
    b.load(m.zeros, 0, sWQ, line, line, (long) c.heads() * c.kvDim());
    b.load(m.zeros, 0, sZERO, line, line, zeroBytes / line);
    b.dspIn(sZERO, 0, zeroBytes / 2, 1, rO, Command.FMT_FP16, 0);
    for (int start = 0; start < tokens.length; start += blockMax) {
      int n = Math.min(blockMax, tokens.length - start);
      int[] block = java.util.Arrays.copyOfRange(tokens, start, start + n);
      boolean[] want = new boolean[n];
      int[] row = new int[n];
      for (int t = 0; t < n; t++) {
        int i = start + t;
        want[t] = allLogits || i == tokens.length - 1;
        row[t] = allLogits ? i : 0;
      }
      block(block, pos0 + start, want, row);
    }
    b.halt();
    return b.build();
  }

  private void run(DspProgram program) {
    b.dspRun(pool.applyAsLong(program), program.size());
  }

  private static short half(double v) {
    return Fp16.fromDouble(v);
  }

  private void block(int[] tokens, int pos, boolean[] want, int[] logitRow) {
    int n = tokens.length;
    int sigmaDim = LoweredModel.shift(c.dim());
    for (int t = 0; t < n; t++) {
      b.load(m.embedding + (long) tokens[t] * m.embeddingStride, line, sXR + (long) t * xrStride, line, 2L * c.dim(), 1);
    }
    for (int l = 0; l < c.layers(); l++) {
      b.load(m.layerVectors[l], line, sVEC, line, 2L * m.layerVectorElems, 1);
      vecIn(m.vG1, c.dim(), rG1);
      vecIn(m.vG2, c.dim(), rG2);
      vecIn(m.vQkv, m.qkvN, rWsQkv);
      vecIn(m.vO, c.dim(), rWsO);
      vecIn(m.vW1, c.hiddenDim(), rWs1);
      vecIn(m.vW3, c.hiddenDim(), rWs3);
      vecIn(m.vW2, c.dim(), rWs2);
      long kBase = m.kCache + (long) l * m.maxContext() * m.kvBytes;
      long vBase = m.vCache + (long) l * m.maxContext() * m.kvBytes;
      if (pos > 0) {
        b.load(kBase, m.kvBytes, sKC, m.kvBytes, m.kvBytes, pos);
        b.load(vBase, m.kvBytes, sVC, m.kvBytes, m.kvBytes, pos);
      }
      // attention inputs
      for (int t = 0; t < n; t++) {
        normQuantize(t, rG1, rDX + t, sXS + (long) t * xsStride);
      }
      weight(m.wQkv[l], c.dim(), m.qkvN);
      gemmTiled(n, c.dim(), m.qkvN, sXS, xsStride);
      int kvPad = LoweredModel.roundUp(c.kvDim(), line);
      for (int t = 0; t < n; t++) {
        int slot = pos + t;
        b.dspIn(sY + (long) t * yStride, line, m.qkvN, 1, rAcc, Command.FMT_INT32, sigmaDim);
        run(r.scale(rAcc, m.qkvN, rDX + t, rWsQkv, null, -1, rQkv));
        b.load(m.rope + (long) slot * m.ropeStride, line, sVEC, line, 4L * nq, 1);
        b.dspIn(sVEC, line, 2L * nq, 1, rCs, Command.FMT_FP16, 0);
        int qRows = r.rows(nq);
        int kRows = r.rows(nk);
        run(r.kernel(DspKernel.ROPE, 2 * nq, new int[] {rQkv, rQkv + qRows, rCs, rCs + qRows},
            new int[] {rQ, rQ + qRows}));
        run(r.kernel(DspKernel.ROPE, 2 * nk, new int[] {rQkv + 2 * qRows, rQkv + 2 * qRows + kRows, rCs, rCs + qRows},
            new int[] {rK, rK + kRows}));
        run(r.quantize(rQ, 2 * nq, -1, rQQ + t * 2 * qRows, rDQ + t));
        run(r.quantize(rK, 2 * nk, -1, rKQ, rDK));
        run(r.quantize(rQkv + 2 * qRows + 2 * kRows, c.kvDim(), -1, rVQ, rDV));
        b.dspOut(sKC + (long) slot * m.kvBytes, line, c.kvDim(), 1, rKQ, Command.FMT_INT8);
        b.dspOut(sKC + (long) slot * m.kvBytes + kvPad, line, 1, 1, rDK, Command.FMT_FP16);
        b.dspOut(sVC + (long) slot * m.kvBytes, line, c.kvDim(), 1, rVQ, Command.FMT_INT8);
        b.dspOut(sVC + (long) slot * m.kvBytes + kvPad, line, 1, 1, rDV, Command.FMT_FP16);
      }
      b.store(kBase + (long) pos * m.kvBytes, m.kvBytes, sKC + (long) pos * m.kvBytes, m.kvBytes, m.kvBytes, n);
      b.store(vBase + (long) pos * m.kvBytes, m.kvBytes, sVC + (long) pos * m.kvBytes, m.kvBytes, m.kvBytes, n);
      b.dspIn(sKC + kvPad, m.kvBytes, 1, pos + n, rDKV, Command.FMT_FP16, 0);
      b.dspIn(sVC + kvPad, m.kvBytes, 1, pos + n, rDVV, Command.FMT_FP16, 0);
      for (int t = 0; t < n; t++) {
        attention(t, pos + t + 1);
      }
      weight(m.wO[l], m.oK, c.dim());
      gemmTiled(n, m.oK, c.dim(), sXO, xoStride);
      for (int t = 0; t < n; t++) {
        residual(t, LoweredModel.shift(m.oK), rDO + t, rWsO);
      }
      // feed-forward
      for (int t = 0; t < n; t++) {
        normQuantize(t, rG2, rDX + t, sXS + (long) t * xsStride);
      }
      weight(m.w13[l], c.dim(), m.w13N);
      gemmTiled(n, c.dim(), m.w13N, sXS, xsStride);
      for (int t = 0; t < n; t++) {
        long y = sY + (long) t * yStride;
        b.dspIn(y, line, c.hiddenDim(), 1, rAcc, Command.FMT_INT32, sigmaDim);
        b.dspIn(y + 4L * m.h3Offset, line, c.hiddenDim(), 1, rAcc3, Command.FMT_INT32, sigmaDim);
        run(r.scale(rAcc, c.hiddenDim(), rDX + t, rWs1, null, -1, rGate));
        run(r.scale(rAcc3, c.hiddenDim(), rDX + t, rWs3, null, -1, rUp));
        run(r.kernel(DspKernel.SWIGLU, c.hiddenDim(), new int[] {rGate, rUp}, new int[] {rSw}));
        run(r.quantize(rSw, c.hiddenDim(), -1, rXQ, rDH + t));
        b.dspOut(sXS + (long) t * xsStride, line, c.hiddenDim(), 1, rXQ, Command.FMT_INT8);
      }
      weight(m.w2[l], c.hiddenDim(), c.dim());
      gemmTiled(n, c.hiddenDim(), c.dim(), sXS, xsStride);
      for (int t = 0; t < n; t++) {
        residual(t, LoweredModel.shift(c.hiddenDim()), rDH + t, rWs2);
      }
    }
    // final norm and LM head for the tokens whose logits are wanted
    int count = 0;
    int[] which = new int[n];
    for (int t = 0; t < n; t++) {
      if (want[t]) {
        which[count++] = t;
      }
    }
    if (count == 0) {
      return;
    }
    b.load(m.finalVectors, line, sVEC, line, 2L * (m.vLm + c.vocabSize()), 1);
    vecIn(0, c.dim(), rG1);
    vecIn(m.vLm, c.vocabSize(), rSc2);
    for (int i = 0; i < count; i++) {
      normQuantize(which[i], rG1, rDX + which[i], sXS + (long) i * xsStride);
    }
    headWeight(m.lmHead, c.dim(), c.vocabSize());
    gemmTiled(count, c.dim(), c.vocabSize(), sXS, xsStride);
    for (int i = 0; i < count; i++) {
      int t = which[i];
      b.dspIn(sY + (long) i * yStride, line, c.vocabSize(), 1, rSc, Command.FMT_INT32, sigmaDim);
      run(r.scale(rSc, c.vocabSize(), rDX + t, rSc2, null, -1, rP));
      b.dspOut(sLOG, line, c.vocabSize(), 1, rP, Command.FMT_FP16);
      b.store(m.logits + (long) logitRow[t] * m.logitsStride, line, sLOG, line, 2L * c.vocabSize(), 1);
    }
  }

  /** FP16 vector at element {@code offset} of the vector block staged in sVEC → DSP rows. */
  private void vecIn(int offset, int len, int row) {
    b.dspIn(sVEC + 2L * offset, line, len, 1, row, Command.FMT_FP16, 0);
  }

  /** x_t → RMSNorm(gamma) → INT8 with scale to {@code scaleRow} → scratchpad row {@code xs}. */
  private void normQuantize(int t, int gamma, int scaleRow, long xs) {
    b.dspIn(sXR + (long) t * xrStride, line, c.dim(), 1, rX, Command.FMT_FP16, 0);
    run(r.kernel(DspKernel.RMSNORM, c.dim(), new int[] {rX, gamma}, new int[] {rXN}));
    run(r.quantize(rXN, c.dim(), -1, rXQ, scaleRow));
    b.dspOut(xs, line, c.dim(), 1, rXQ, Command.FMT_INT8);
  }

  /** x_t += dequantize(Y_t) (a dim-wide GEMM result). */
  private void residual(int t, int sigma, int scaleRow, int wsRow) {
    b.dspIn(sY + (long) t * yStride, line, c.dim(), 1, rAcc, Command.FMT_INT32, sigma);
    b.dspIn(sXR + (long) t * xrStride, line, c.dim(), 1, rX, Command.FMT_FP16, 0);
    run(r.scale(rAcc, c.dim(), scaleRow, wsRow, null, rX, rX2));
    b.dspOut(sXR + (long) t * xrStride, line, c.dim(), 1, rX2, Command.FMT_FP16);
  }

  private int wStride;

  /** Stages a block weight (INT4 widened by load4 when the model's weights are 4-bit). */
  private void weight(long ext, int k, int n) {
    wStride = m.spadStride(n);
    int es = m.extStride(n);
    if (m.bits == 4) {
      b.load4(ext, es, sWT, wStride, es, k);
    } else {
      b.load(ext, es, sWT, wStride, es, k);
    }
  }

  /** Stages the LM head (INT8). */
  private void headWeight(long ext, int k, int n) {
    wStride = LoweredModel.roundUp(n, line);
    b.load(ext, wStride, sWT, wStride, wStride, k);
  }

  /** Y[M×N] = X · W (W staged in sWT), N tiled to the machine's maxN. */
  private void gemmTiled(int mRows, int k, int n, long x, int xStride) {
    int tile = p.maxN() / line * line;
    if (tile < 1) {
      tile = p.maxN();
    }
    for (int n0 = 0; n0 < n; n0 += tile) {
      int nn = Math.min(tile, n - n0);
      b.gemm(mRows, k, nn, x, xStride, sWT + n0, wStride, sY + 4L * n0, yStride);
    }
  }

  /** Attention of block token t over {@code s} slots, all heads; its quantized output to sXO row t. */
  private void attention(int t, int s) {
    int qRows = r.rows(nq);
    int qq = rQQ + t * 2 * qRows;
    boolean aligned = half % lanes == 0;
    if (!aligned) {
      run(r.scatter(qq, c.heads(), half, rQS));
    }
    int sigmaS = LoweredModel.shift(c.kvDim());
    int sigmaP = LoweredModel.shift(m.maxContext());
    short scoreScale = half(Math.scalb(1.0, -sigmaS) / Math.sqrt(c.headDim()));
    short pvScale = half(Math.scalb(1.0, -sigmaP));
    for (int h = 0; h < c.heads(); h++) {
      int g = h / c.groupSize();
      long wq = sWQ + (long) h * wqBytes;
      int evens = aligned ? qq + h * half / lanes : rQS + h;
      int odds = aligned ? qq + (nq + h * half) / lanes : rQS + c.heads() + h;
      b.dspOut(wq + (long) half * g * line, line, 1, half, evens, Command.FMT_INT8);
      b.dspOut(wq + (long) (nk + half * g) * line, line, 1, half, odds, Command.FMT_INT8);
      for (int m0 = 0; m0 < s; m0 += p.maxM()) {
        int mm = Math.min(p.maxM(), s - m0);
        b.gemm(mm, c.kvDim(), 1, sKC + (long) m0 * m.kvBytes, m.kvBytes, wq, line, sYS + (long) m0 * line, line);
      }
      b.dspIn(sYS, line, 1, s, rSc, Command.FMT_INT32, sigmaS);
      run(r.scale(rSc, s, rDQ + t, rDKV, scoreScale, -1, rSc2));
      run(r.kernel(DspKernel.SOFTMAX, s, new int[] {rSc2}, new int[] {rP}));
      run(r.quantize(rP, s, rDVV, rPQ, rDP));
      b.dspOut(sXP, line, s, 1, rPQ, Command.FMT_INT8);
      int first = c.headDim() * g;
      int off = first / line * line;
      int col = first - off;
      b.gemm(1, s, col + c.headDim(), sXP, line, sVC + off, m.kvBytes, sYO, line);
      b.dspIn(sYO + 4L * col, line, c.headDim(), 1, rO + h * hdRows, Command.FMT_INT32, sigmaP);
      run(r.scale(rO + h * hdRows, hdRows * lanes, rDP, -1, pvScale, -1, rOF + h * hdRows));
    }
    run(r.quantize(rOF, m.oK, -1, rOQ, rDO + t));
    b.dspOut(sXO + (long) t * xoStride, line, m.oK, 1, rOQ, Command.FMT_INT8);
  }
}
