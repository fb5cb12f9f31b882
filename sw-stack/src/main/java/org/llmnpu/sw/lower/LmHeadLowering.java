package org.llmnpu.sw.lower;

import org.llmnpu.isa.Command;

/**
 * The end of a block: final RMSNorm → INT8 → LM head GEMM (INT8 weights, on the array) →
 * dequantize → FP16 logits stored to their row in memory, for the tokens whose logits are wanted.
 */
final class LmHeadLowering {
  private final LoweringEmitter e;
  private final LoweringLayout l;

  LmHeadLowering(LoweringEmitter emitter) {
    this.e = emitter;
    this.l = emitter.l;
  }

  /** Logits of block token t to logits row {@code logitRow[t]} when {@code want[t]}. */
  void emit(int n, boolean[] want, int[] logitRow) {
    var b = e.b;
    var m = l.m;
    var c = l.c;
    var r = l.r;
    int line = l.line;
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
    b.load(m.finalVectors, line, l.sVEC, line, 2L * (m.vLm + c.vocabSize()), 1);
    e.vecIn(0, c.dim(), l.rG1);
    e.vecIn(m.vLm, c.vocabSize(), l.rSc2);
    for (int i = 0; i < count; i++) {
      e.normQuantize(which[i], l.rG1, e.xScaleRow(which[i]), l.sXS + (long) i * l.xsStride);
    }
    e.headWeight(m.lmHead, c.dim(), c.vocabSize());
    e.gemmTiled(count, c.dim(), c.vocabSize(), l.sXS, l.xsStride);
    for (int i = 0; i < count; i++) {
      int t = which[i];
      e.resultIn((long) i * l.yStride, c.vocabSize(), l.rSc, -1);
      e.run(r.scale(l.rSc, c.vocabSize(), e.xScaleRow(t), l.rSc2, null, -1, l.rP));
      b.dspOut(l.sLOG, line, c.vocabSize(), 1, l.rP, Command.FMT_FP16);
      b.store(m.logits + (long) logitRow[t] * m.logitsStride, line, l.sLOG, line, 2L * c.vocabSize(), 1);
    }
  }
}
