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
  final int half;
  final int nq;
  final int nk;
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
  final int rDP;
  final int rO;
  final int rOF;
  final int rOQ;
  final int rGate;
  final int rUp;
  final int rSw;
  final int ctxRows;

  LoweringLayout(LoweredModel model, int blockMax) {
    this.m = model;
    this.c = model.config();
    this.p = model.machine();
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

  int spadBytesUsed() {
    return spadNext;
  }

  int dspRowsUsed() {
    return dspNext;
  }
}
