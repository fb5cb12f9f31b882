package org.llmnpu.sw.lower;

import org.llmnpu.isa.Command;
import org.llmnpu.isa.dsp.DspKernel;

/**
 * The feed-forward half of a layer for a block of tokens: RMSNorm → INT8 → fused W1|W3 GEMM →
 * dequantize both → SiLU·gate (the DSP's {@code swiglu}) → INT8 → W2 GEMM + residual.
 */
final class FeedForwardLowering {
  private final LoweringEmitter e;
  private final LoweringLayout l;

  FeedForwardLowering(LoweringEmitter emitter) {
    this.e = emitter;
    this.l = emitter.l;
  }

  /** Layer {@code layer} for block tokens {@code 0..n-1}. */
  void emit(int layer, int n) {
    var b = e.b;
    var m = l.m;
    var c = l.c;
    var r = l.r;
    int line = l.line;
    for (int t = 0; t < n; t++) {
      e.normQuantize(t, l.rG2, l.rDX + t, l.sXS + (long) t * l.xsStride);
    }
    e.weight(m.w13[layer], c.dim(), m.w13N);
    e.gemmTiled(n, c.dim(), m.w13N, l.sXS, l.xsStride);
    for (int t = 0; t < n; t++) {
      long y = (long) t * l.yStride;
      e.resultIn(y, c.hiddenDim(), l.rAcc, l.rWs1);
      e.resultIn(y + 4L * m.h3Offset, c.hiddenDim(), l.rAcc3, l.rWs3);
      e.run(r.scale(l.rAcc, c.hiddenDim(), l.rDX + t, e.channelScales(l.rWs1), null, -1, l.rGate));
      e.run(r.scale(l.rAcc3, c.hiddenDim(), l.rDX + t, e.channelScales(l.rWs3), null, -1, l.rUp));
      e.run(r.kernel(DspKernel.SWIGLU, c.hiddenDim(), new int[] {l.rGate, l.rUp}, new int[] {l.rSw}));
      e.run(r.quantize(l.rSw, c.hiddenDim(), -1, l.rXQ, l.rDH + t));
      b.dspOut(l.sXS + (long) t * l.xsStride, line, c.hiddenDim(), 1, l.rXQ, Command.FMT_INT8);
    }
    e.weight(m.w2[layer], c.hiddenDim(), c.dim());
    e.gemmTiled(n, c.hiddenDim(), c.dim(), l.sXS, l.xsStride);
    for (int t = 0; t < n; t++) {
      e.residual(t, l.rDH + t, l.rWs2);
    }
  }
}
