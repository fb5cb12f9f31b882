package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * The DSP side of a block's RMSNorms and residual adds, emitted into {@link LoweringEmitter}'s program: a token's x
 * in from the scratchpad, its RMSNorm and quantization to the GEMM's INT8 codes (the dynamic absmax scale, or the
 * calibrated static one in {@link LoweringEmitter#inputScale}), a GEMM result's residual add, both fused into one
 * chain, and two tokens' in shared runs ({@link DspRoutines#mergedNorms}, {@link DspQuantizeFold}).
 */
final class NormEmitter {
  private final LoweringEmitter e;
  private final LoweringLayout l;

  /**
   * At {@code --fusion full} a one-token block (a decode step) keeps x in its DSP rows from the first RMSNorm to the
   * LM head: the residual adds in place and nothing re-reads x from the scratchpad (no {@code dspin}/{@code dspout}
   * round trip per residual and norm; the residual's run joins the next norm's). Same arithmetic, same results.
   */
  private final boolean residentX;
  /** Whether the block has one token ({@link #residentX}; {@link #blockStart}), and whether its x is in l.rX. */
  private boolean oneTokenBlock;
  private boolean xInDsp;
  /**
   * Whether the residual and RMSNorm pairs with a static input scale go as one run kept in the program memory
   * ({@link CommandStream#dspRunPinned}, {@link PrefillOrder.Weave#GATED}).
   */
  boolean pinPairs;
  /**
   * Whether the residuals with a constant input scale (the gated feed-forward's W2 results, the layer's static scale
   * baked into the program) go as a run kept in the program memory ({@link CommandStream#dspRunPinned}): a layer's
   * first residual loads its new program by a {@code dspld}, which the interleaver starts before a W stream, so the
   * residuals go beside that stream where a plain first run waited for its end ({@link PrefillOrder.Weave#GATED}).
   */
  boolean pinResiduals;

  NormEmitter(LoweringEmitter e, boolean residentX) {
    this.e = e;
    this.l = e.l;
    this.residentX = residentX;
  }

  /**
   * x_t → RMSNorm(gamma) → INT8 with scale to {@code scaleRow} → scratchpad row {@code xs}: the dynamic absmax
   * scale, or the calibrated static one when {@link LoweringEmitter#inputScale} is set.
   */
  void normQuantize(int t, int gamma, int scaleRow, long xs) {
    int dim = l.c.dim();
    xIn(t);
    normQuantizeRuns(l.rX, gamma, scaleRow);
    e.b.dspOut(xs, l.line, dim, 1, l.rXQ, Command.FMT_INT8);
  }

  /** RMSNorm(gamma) of the FP16 vector at DSP row {@code x} → INT8 codes at rXQ, scale to {@code scaleRow}. */
  private void normQuantizeRuns(int x, int gamma, int scaleRow) {
    int dim = l.c.dim();
    e.run(l.r.kernel(DspKernel.RMSNORM, dim, new int[] {x, gamma}, new int[] {l.rXN}));
    if (e.inputScale > 0) {
      e.run(l.r.quantizeStatic(l.rXN, dim, -1, LoweringEmitter.half(1 / e.inputScale), l.rXQ, scaleRow,
          LoweringEmitter.half(e.inputScale)));
    } else {
      e.run(l.r.quantize(l.rXN, dim, -1, l.rXQ, scaleRow));
    }
  }

  /**
   * {@link #residual} of token t and then {@link #normQuantize} of the new x_t (gamma, {@code normScaleRow},
   * scratchpad row {@code xs}) straight from the DSP row the residual wrote: the same values as the two one after the
   * other, without reading x_t back, and the runs consecutive so that they go as one ({@link DspChain}). A block that
   * keeps x in the DSP ({@link #residentX}) takes the two as they are: its residual adds in place.
   */
  void residualNormQuantize(int t, int scaleRow, int wsRow, int gamma, int normScaleRow, long xs) {
    if (keepsX()) {
      residual(t, scaleRow, null, wsRow);
      normQuantize(t, gamma, normScaleRow, xs);
      return;
    }
    int dim = l.c.dim();
    e.resultIn((long) t * l.yStride, dim, l.rAcc, wsRow);
    xIn(t);
    e.run(l.r.scale(l.rAcc, dim, scaleRow, e.channelScales(wsRow), null, l.rX, l.rX2));
    normQuantizeRuns(l.rX2, gamma, normScaleRow);
    e.b.dspOut(l.sXR + (long) t * l.xrStride, l.line, dim, 1, l.rX2, Command.FMT_FP16);
    e.b.dspOut(xs, l.line, dim, 1, l.rXQ, Command.FMT_INT8);
  }

  /**
   * {@link #normQuantize} of tokens t and t + 1 of a block of several tokens, token t + 1's x, RMSNorm and codes at DSP
   * rows from {@code pairRows}: the two RMSNorms and quantizations in shared runs, the same values as one token after
   * the other. Token t + 1's scale goes to {@code scaleRow + 1}, its codes {@code xsStride} after t's.
   */
  void normQuantizePair(int t, int gamma, int scaleRow, long xs, long xsStride, int pairRows) {
    int dim = l.c.dim();
    int rows = l.r.rows(dim);
    int[][] at = {{l.rX, l.rXN, l.rXQ}, {pairRows, pairRows + rows, pairRows + 2 * rows}};
    List<DspProgram> norms = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      e.b.dspIn(l.sXR + (long) (t + i) * l.xrStride, l.line, dim, 1, at[i][0], Command.FMT_FP16, 0);
      norms.add(l.r.kernel(DspKernel.RMSNORM, dim, new int[] {at[i][0], gamma}, new int[] {at[i][1]}));
    }
    normsQuantizedPair(l.r.mergedNorms(norms), at[0][1], at[1][1], at[0][2], at[1][2], scaleRow,
        nextScaleRow(scaleRow)).forEach(e::run);
    for (int i = 0; i < 2; i++) {
      e.b.dspOut(xs + i * xsStride, l.line, dim, 1, at[i][2], Command.FMT_INT8);
    }
  }

  /**
   * The two tokens' RMSNorm runs {@code norms}, then their codes in shared runs (static: {@link DspQuantizeFold}): the
   * programs, for the caller to run ({@link #pinsPairs}).
   */
  private List<DspProgram> normsQuantizedPair(List<DspProgram> norms, int in0, int in1, int out0, int out1,
                                              int scaleRow, int scaleRow1) {
    int dim = l.c.dim();
    if (e.inputScale > 0) {
      short k = LoweringEmitter.half(1 / e.inputScale);
      short d = LoweringEmitter.half(e.inputScale);
      return DspQuantizeFold.runs(l.r, norms, List.of(new DspQuantizeFold.Codes(in0, dim, k, out0, scaleRow, d),
          new DspQuantizeFold.Codes(in1, dim, k, out1, scaleRow1, d)));
    }
    List<DspProgram> runs = new ArrayList<>(norms);
    runs.addAll(l.r.quantizeRuns(List.of(new DspQuantizer.Vector(in0, dim, -1, out0, scaleRow),
        new DspQuantizer.Vector(in1, dim, -1, out1, scaleRow1))));
    return runs;
  }

  /** The input-scale row of the token after the one whose row is {@code scaleRow} ({@link #xScaleRow}). */
  private int nextScaleRow(int scaleRow) {
    return e.inputScale > 0 ? scaleRow : scaleRow + 1;
  }

  /**
   * {@link #residualNormQuantize} of tokens t and t + 1 of a block of several tokens, token t + 1's five dim-wide
   * vectors (result, x, new x, RMSNorm, codes) at DSP rows from {@code pairRows}: the two tokens' residual scales,
   * RMSNorms and quantizations in shared runs ({@link DspRoutines#mergedKernels}, {@link DspRoutines#mergedNorms}),
   * the same values as one token after the other. Token t + 1 uses the scale rows
   * after t's ({@code scaleRow + 1}, {@code normScaleRow + 1}) and writes its codes {@code xsStride} after t's.
   */
  void residualNormQuantizePair(int t, int scaleRow, int wsRow, int gamma, int normScaleRow, long xs, long xsStride,
                                int pairRows) {
    int dim = l.c.dim();
    int rows = l.r.rows(dim);
    List<DspProgram> scales = new ArrayList<>();
    List<DspProgram> norms = new ArrayList<>();
    int[][] at = new int[2][];
    for (int i = 0; i < 2; i++) {
      // acc, x, new x, RMSNorm, codes
      at[i] = i == 0 ? new int[] {l.rAcc, l.rX, l.rX2, l.rXN, l.rXQ}
          : new int[] {pairRows, pairRows + rows, pairRows + 2 * rows, pairRows + 3 * rows, pairRows + 4 * rows};
      e.resultIn((long) (t + i) * l.yStride, dim, at[i][0], wsRow);
      e.b.dspIn(l.sXR + (long) (t + i) * l.xrStride, l.line, dim, 1, at[i][1], Command.FMT_FP16, 0);
      scales.add(l.r.scale(at[i][0], dim, scaleRow + i, e.channelScales(wsRow), null, at[i][1], at[i][2]));
      norms.add(l.r.kernel(DspKernel.RMSNORM, dim, new int[] {at[i][2], gamma}, new int[] {at[i][3]}));
    }
    List<DspProgram> runs = new ArrayList<>(l.r.mergedKernels(scales));
    runs.addAll(normsQuantizedPair(l.r.mergedNorms(norms), at[0][3], at[1][3], at[0][4], at[1][4], normScaleRow,
        nextScaleRow(normScaleRow)));
    if (pinsPairs(runs)) {
      e.b.dspRunPinned(runs);
    } else {
      runs.forEach(e::run);
    }
    for (int i = 0; i < 2; i++) {
      e.b.dspOut(l.sXR + (long) (t + i) * l.xrStride, l.line, dim, 1, at[i][2], Command.FMT_FP16);
      e.b.dspOut(xs + i * xsStride, l.line, dim, 1, at[i][4], Command.FMT_INT8);
    }
  }

  /** x_t += dequantize(Y_t) (a dim-wide result of the last block GEMM); the scale at {@code scaleRow}, or {@code c}. */
  void residual(int t, int scaleRow, Short c, int wsRow) {
    int dim = l.c.dim();
    e.resultIn((long) t * l.yStride, dim, l.rAcc, wsRow);
    xIn(t);
    if (keepsX()) {
      e.run(l.r.scale(l.rAcc, dim, scaleRow, e.channelScales(wsRow), c, l.rX, l.rX));
      return;
    }
    DspProgram scale = l.r.scale(l.rAcc, dim, scaleRow, e.channelScales(wsRow), c, l.rX, l.rX2);
    if (pinResiduals && c != null && e.b.resident()) {
      e.b.dspRunPinned(List.of(scale));
    } else {
      e.run(scale);
    }
    e.b.dspOut(l.sXR + (long) t * l.xrStride, l.line, dim, 1, l.rX2, Command.FMT_FP16);
  }

  /**
   * Whether a residual and RMSNorm pair's {@code runs} go pinned ({@link #pinPairs}): with residency and the static
   * input scale (the same program for every pair but for its scale rows, which are run parameters), where the joined
   * program fits the program memory.
   */
  private boolean pinsPairs(List<DspProgram> runs) {
    return pinPairs && e.b.resident() && e.inputScale > 0 && l.r.pins(2, runs, 0);
  }

  /** Whether x stays in the DSP ({@link #residentX}) in this block. */
  private boolean keepsX() {
    return residentX && oneTokenBlock;
  }

  /** x_t from the scratchpad to {@code l.rX}, unless it is already there ({@link #residentX}). */
  private void xIn(int t) {
    if (keepsX() && xInDsp) {
      return;
    }
    e.b.dspIn(l.sXR + (long) t * l.xrStride, l.line, l.c.dim(), 1, l.rX, Command.FMT_FP16, 0);
    xInDsp = keepsX();
  }

  /** A block starts: its x is in the scratchpad ({@code sXR}). */
  void blockStart(int tokens) {
    oneTokenBlock = tokens == 1;
    xInDsp = false;
  }
}
