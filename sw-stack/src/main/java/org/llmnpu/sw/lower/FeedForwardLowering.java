package org.llmnpu.sw.lower;

import org.llmnpu.isa.Command;
import org.llmnpu.isa.dsp.DspKernel;

/**
 * The feed-forward half of a layer for a block of tokens: RMSNorm → INT8 → fused W1|W3 GEMM →
 * dequantize both → SiLU·gate (the DSP's {@code swiglu}) → INT8 → W2 GEMM + residual; with the PPM epilogue
 * ({@link #emitThroughPpm}), and at {@code --fusion full} on an NPU whose PPM has the gate operand with the SwiGLU gate
 * through the PPM too ({@link #emitGated}).
 */
final class FeedForwardLowering {
  private final LoweringEmitter e;
  private final LoweringLayout l;

  /** The attention half left its Wo residual to this half's RMSNorm ({@code --fusion full}, {@link AttentionLowering}). */
  private final boolean withResidual;

  /** {@link LoweringLayout#rPair} at {@code --fusion full}: two tokens' DSP work in shared runs; −1 without. */
  private final int rPair;

  FeedForwardLowering(LoweringEmitter emitter, boolean withResidual) {
    this.e = emitter;
    this.l = emitter.l;
    this.withResidual = withResidual;
    this.rPair = withResidual ? l.rPair : -1;
  }

  /** {@link #normQuantize} of block tokens 0..n−1: two at a time in shared runs when {@link #rPair} is set. */
  private void normQuantizeAll(int n) {
    for (int t = 0; t < n; t++) {
      if (rPair >= 0 && t + 1 < n) {
        e.norms.residualNormQuantizePair(t, l.rDO + t, l.rWsO, l.rG2, e.xScaleRow(t), l.sXS + (long) t * l.xsStride,
            l.xsStride, rPair);
        t++;
      } else {
        normQuantize(t);
      }
    }
  }

  /** Token t's x → RMSNorm → INT8 to sXS row t, after adding the Wo result when the attention half left it. */
  private void normQuantize(int t) {
    if (withResidual) {
      e.norms.residualNormQuantize(t, l.rDO + t, l.rWsO, l.rG2, e.xScaleRow(t), l.sXS + (long) t * l.xsStride);
    } else {
      e.normQuantize(t, l.rG2, e.xScaleRow(t), l.sXS + (long) t * l.xsStride);
    }
  }

  /** Layer {@code layer} for block tokens {@code 0..n-1}. */
  void emit(int layer, int n) {
    if (e.epilogue != null && gated()) {
      emitGated(layer, n);
      return;
    }
    if (e.epilogue != null) {
      emitThroughPpm(layer, n);
      return;
    }
    var b = e.b;
    var m = l.m;
    var c = l.c;
    var r = l.r;
    int line = l.line;
    for (int t = 0; t < n; t++) {
      normQuantize(t);
    }
    e.weight(m.w13[layer], c.dim(), m.w13N);
    e.gemmTiled(n, c.dim(), m.w13N, l.sXS, l.xsStride);
    for (int t = 0; t < n; t++) {
      long y = (long) t * l.yStride;
      e.resultIn(y, c.hiddenDim(), l.rAcc, l.rWs1);
      e.resultIn(y + 4L * m.h3Offset, c.hiddenDim(), l.rAcc3, l.rWs3);
      e.run(r.scale(l.rAcc, c.hiddenDim(), e.xScaleRow(t), e.channelScales(l.rWs1), null, -1, l.rGate));
      e.run(r.scale(l.rAcc3, c.hiddenDim(), e.xScaleRow(t), e.channelScales(l.rWs3), null, -1, l.rUp));
      e.run(r.kernel(DspKernel.SWIGLU, c.hiddenDim(), new int[] {l.rGate, l.rUp}, new int[] {l.rSw}));
      e.run(r.quantize(l.rSw, c.hiddenDim(), -1, l.rXQ, l.rDH + t));
      b.dspOut(l.sXS + (long) t * l.xsStride, line, c.hiddenDim(), 1, l.rXQ, Command.FMT_INT8);
    }
    e.weight(m.w2[layer], c.hiddenDim(), c.dim());
    e.gemmTiled(n, c.hiddenDim(), c.dim(), l.sXS, l.xsStride);
    for (int t = 0; t < n; t++) {
      e.residual(t, l.rDH + t, null, l.rWs2);
    }
  }

  /**
   * Whether the SwiGLU gate goes through the PPM ({@link #emitGated}): at {@code --fusion full} (the attention half
   * leaves its residual here) when the epilogue's gated records exist ({@link PpmEpilogues#gated}) and a Y row holds
   * W2's INT32 results and the hidden codes after them ({@link #gatedCodes}).
   */
  boolean gated() {
    return withResidual && l.m.epilogues.gated && gatedCodes(l) + l.c.hiddenDim() <= l.yStride;
  }

  /**
   * Byte offset in a Y row of the gated feed-forward's hidden codes: after the {@code 4·dim} bytes of W2's INT32
   * results, line-aligned (W2's N tiles write their results while later tiles still read the codes as X).
   */
  static long gatedCodes(LoweringLayout l) {
    return LoweredModel.roundUp(4L * l.c.dim(), l.line);
  }

  /**
   * The feed-forward with the SwiGLU gate through the PPM ({@code gemm ppm=1 gate=1}): RMSNorm → INT8 with the static
   * scale → W1 columns through the PPM with the SiLU table: INT8 codes of SiLU(gate) at {@code sY + }{@link #gatedCodes}
   * (token t's row {@code yStride} apart) → W3 columns through the gated PPM onto the same bytes, each code
   * {@code requantize(up_acc · silu_code)} to the W2 input's static scale ({@link StaticScales.Site#W2_IN},
   * {@code numerics} {@code GatedRequantizer}) → the W2 GEMM reading those codes as X → residual with the static scale
   * as a constant. Nothing runs on the DSP between the GEMMs: no {@code dspin}/{@code dspout}, no scaling, no
   * quantization; what differs from {@link #emitThroughPpm} is the arithmetic of h = SiLU(gate)·up: up's INT32 times
   * the SiLU code in fixed point instead of FP16 on the DSP, and h's scale static instead of its per-token absmax.
   */
  private void emitGated(int layer, int n) {
    int tiles = emitGatedNorms(layer, n);
    gatedTiles(layer, n, 0, tiles);
    emitGatedDown(layer, n);
  }

  /** Whether this feed-forward's W1/W3 GEMMs can be woven into another block's attention: gated ({@link #emitGated}). */
  boolean weavesGated() {
    return e.epilogue != null && gated();
  }

  /**
   * {@link #emitGated} up to its W1/W3 GEMMs: the residuals, RMSNorms and codes, the SiLU table; returns the W1/W3
   * GEMMs' N tiles (W1's then W3's) for {@link #gatedTiles}.
   */
  int emitGatedNorms(int layer, int n) {
    e.inputScale = e.epilogue.of(StaticScales.Site.W13_IN, layer);
    normQuantizeAll(n);
    e.inputScale = 0;
    e.b.add(new Command.PpuTab(l.m.epilogues.siluTable(layer)));
    return 2 * e.ppmTiles(l.c.hiddenDim(), l.m.bits == 4);
  }

  /**
   * The W1/W3 GEMMs' N tiles {@code [from, to)} of {@link #emitGatedNorms}'s (W1's tiles first, then W3's, each W3 tile
   * after W1's tile of the same columns, whose SiLU codes it gates): the first tile of the range copies X, the later
   * ones keep it (with xKeep; a woven piece follows other GEMMs that wrote the X buffer).
   */
  void gatedTiles(int layer, int n, int from, int to) {
    var m = l.m;
    int hidden = l.c.hiddenDim();
    PpmEpilogues ep = m.epilogues;
    long w = ep.w13(layer);
    int stride = m.extStride(ep.n13);
    long codes = l.sY + gatedCodes(l);
    int half = e.ppmTiles(hidden, m.bits == 4);
    if (from < Math.min(to, half)) {
      e.gemmPpm(n, l.c.dim(), w, stride, m.bits == 4, m.sparsity, 0, hidden, l.sXS, l.xsStride, codes,
          ep.gateRecords(layer), false, false, from, Math.min(to, half));
    }
    if (Math.max(from, half) < to) {
      // up right after the gate's last tile of the range: the same X (kept with xKeep)
      e.gemmPpm(n, l.c.dim(), w, stride, m.bits == 4, m.sparsity, ep.h3, hidden, l.sXS, l.xsStride, codes,
          ep.upRecords(layer), true, from < half, Math.max(from, half) - half, to - half);
    }
  }

  /** {@link #emitGated} after its W1/W3 GEMMs: the W2 GEMM of the hidden codes and the residuals. */
  void emitGatedDown(int layer, int n) {
    emitGatedDownGemm(layer, n);
    emitGatedResiduals(layer, n);
  }

  /** {@link #emitGatedDown}'s W2 GEMM. */
  void emitGatedDownGemm(int layer, int n) {
    int hidden = l.c.hiddenDim();
    e.weight(l.m.w2[layer], hidden, l.c.dim());
    e.gemmTiled(n, hidden, l.c.dim(), l.sY + gatedCodes(l), l.yStride);
  }

  /** {@link #emitGatedDown}'s residuals, after its W2 GEMM (the W2 input's static scale a constant). */
  void emitGatedResiduals(int layer, int n) {
    Short d = LoweringEmitter.half(e.epilogue.of(StaticScales.Site.W2_IN, layer));
    for (int t = 0; t < n; t++) {
      e.residual(t, -1, d, l.rWs2);
    }
  }

  /**
   * The fused feed-forward ({@code --fusion vertical}, {@link PpmEpilogues}): RMSNorm → INT8 with the calibrated static
   * scale → W1 columns through the PPM with the SiLU table (INT8 codes of SiLU(gate)) and W3 columns as INT32 (no
   * PPM: a per-layer identity table and two {@code ppmcfg}s cost more than the DSP's dequantization), both streamed →
   * on the DSP up dequantized (as at none), times SiLU(gate) in real units, quantized with its own absmax (a static W2 input scale lost too much accuracy: KL 0.21 instead of 0.14
   * nats on the held-out set) → W2 GEMM + residual as unfused. Replaces per token the two INT32 dequantizations of
   * gate and up and the SwiGLU kernel (exponential, reciprocal) by one scaling pass.
   */
  private void emitThroughPpm(int layer, int n) {
    var b = e.b;
    var m = l.m;
    var c = l.c;
    var r = l.r;
    int line = l.line;
    int hidden = c.hiddenDim();
    StaticScales s = e.epilogue;
    PpmEpilogues ep = m.epilogues;
    e.inputScale = s.of(StaticScales.Site.W13_IN, layer);
    normQuantizeAll(n);
    boolean int4 = m.bits == 4;
    long w = ep.w13(layer);
    int stride = m.extStride(ep.n13);
    long upCodes = LoweredModel.roundUp(hidden, line);
    b.add(new Command.PpuTab(ep.siluTable(layer)));
    e.gemmPpm(n, c.dim(), w, stride, int4, m.sparsity, 0, hidden, l.sXS, l.xsStride, l.sY, ep.gateRecords(layer),
        false, false);
    // up without the PPM (no identity table, no ppmcfg): INT32 results, dequantized on the DSP as at none
    e.gemmPpm(n, c.dim(), w, stride, int4, m.sparsity, ep.h3, hidden, l.sXS, l.xsStride, l.sY + upCodes, -1, false,
        true);
    // SiLU(gate)·up in real units, quantized with its own absmax: a static W2 input scale cost 0.07 nats of KL
    short siluScale = LoweringEmitter.half(s.of(StaticScales.Site.SILU, layer));
    int sigma = LoweredModel.shift(c.dim());
    int hRows = r.rows(hidden);
    for (int t = 0; t < n; t += rPair >= 0 && t + 1 < n ? 2 : 1) {
      // token t in the layout's rows; with rPair, token t + 1 in its own, the two tokens' programs in shared runs
      int pair = rPair >= 0 && t + 1 < n ? 2 : 1;
      java.util.List<DspQuantizer.Vector> codes = new java.util.ArrayList<>();
      for (int i = 0; i < pair; i++) {
        int gate = i == 0 ? l.rGate : rPair;
        int acc = i == 0 ? l.rAcc3 : rPair + hRows;
        int h = i == 0 ? l.rUp : rPair + 2 * hRows;
        int xq = i == 0 ? l.rXQ : rPair + 4 * hRows;
        long y = l.sY + (long) (t + i) * l.yStride;
        b.dspIn(y, line, hidden, 1, gate, Command.FMT_INT8, 0);
        b.dspIn(y + upCodes, line, hidden, 1, acc, Command.FMT_INT32, sigma);
        // h = SiLU(gate)·up computed in the quantization's absmax pass (DspQuantizer.Product), stored at h
        codes.add(new DspQuantizer.Vector(h, hidden, -1, xq, l.rDH + t + i,
            new DspQuantizer.Product(gate, siluScale, acc, e.xScaleRow(t + i), l.rWs3)));
      }
      r.quantizeRuns(codes).forEach(e::run);
      for (int i = 0; i < pair; i++) {
        b.dspOut(l.sXS + (long) (t + i) * l.xsStride, line, hidden, 1, i == 0 ? l.rXQ : rPair + 4 * hRows,
            Command.FMT_INT8);
      }
    }
    e.weight(m.w2[layer], hidden, c.dim());
    e.gemmTiled(n, hidden, c.dim(), l.sXS, l.xsStride);
    // the static input scale set until here: the up dequantizations read its one row (LoweringEmitter#xScaleRow)
    e.inputScale = 0;
    for (int t = 0; t < n; t++) {
      e.residual(t, l.rDH + t, null, l.rWs2);
    }
  }
}
