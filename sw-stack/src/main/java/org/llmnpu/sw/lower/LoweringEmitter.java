package org.llmnpu.sw.lower;

import java.util.function.ToLongFunction;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Program;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.numerics.fp16.Fp16;

/**
 * The command-emitting helpers the parts of the lowering share: DSP program runs, vector staging,
 * RMSNorm + quantization of a token, the residual add of a GEMM result, weight staging and the
 * tiled GEMM. Holds the program being built.
 */
final class LoweringEmitter {
  final LoweringLayout l;
  private final ToLongFunction<DspProgram> pool;
  Program.Builder b;
  private int wStride;

  LoweringEmitter(LoweringLayout layout, ToLongFunction<DspProgram> pool) {
    this.l = layout;
    this.pool = pool;
  }

  void run(DspProgram program) {
    b.dspRun(pool.applyAsLong(program), program.size());
  }

  static short half(double v) {
    return Fp16.fromDouble(v);
  }

  /** FP16 vector at element {@code offset} of the vector block staged in sVEC → DSP rows. */
  void vecIn(int offset, int len, int row) {
    b.dspIn(l.sVEC + 2L * offset, l.line, len, 1, row, Command.FMT_FP16, 0);
  }

  /** x_t → RMSNorm(gamma) → INT8 with scale to {@code scaleRow} → scratchpad row {@code xs}. */
  void normQuantize(int t, int gamma, int scaleRow, long xs) {
    int dim = l.c.dim();
    b.dspIn(l.sXR + (long) t * l.xrStride, l.line, dim, 1, l.rX, Command.FMT_FP16, 0);
    run(l.r.kernel(DspKernel.RMSNORM, dim, new int[] {l.rX, gamma}, new int[] {l.rXN}));
    run(l.r.quantize(l.rXN, dim, -1, l.rXQ, scaleRow));
    b.dspOut(xs, l.line, dim, 1, l.rXQ, Command.FMT_INT8);
  }

  /** x_t += dequantize(Y_t) (a dim-wide GEMM result). */
  void residual(int t, int sigma, int scaleRow, int wsRow) {
    int dim = l.c.dim();
    b.dspIn(l.sY + (long) t * l.yStride, l.line, dim, 1, l.rAcc, Command.FMT_INT32, sigma);
    b.dspIn(l.sXR + (long) t * l.xrStride, l.line, dim, 1, l.rX, Command.FMT_FP16, 0);
    run(l.r.scale(l.rAcc, dim, scaleRow, wsRow, null, l.rX, l.rX2));
    b.dspOut(l.sXR + (long) t * l.xrStride, l.line, dim, 1, l.rX2, Command.FMT_FP16);
  }

  /** Stages a block weight (INT4 widened by load4 when the model's weights are 4-bit). */
  void weight(long ext, int k, int n) {
    wStride = l.m.spadStride(n);
    int es = l.m.extStride(n);
    if (l.m.bits == 4) {
      b.load4(ext, es, l.sWT, wStride, es, k);
    } else {
      b.load(ext, es, l.sWT, wStride, es, k);
    }
  }

  /** Stages the LM head (INT8). */
  void headWeight(long ext, int k, int n) {
    wStride = LoweredModel.roundUp(n, l.line);
    b.load(ext, wStride, l.sWT, wStride, wStride, k);
  }

  /** Y[M×N] = X · W (W staged in sWT), N tiled to the machine's maxN. */
  void gemmTiled(int mRows, int k, int n, long x, int xStride) {
    int tile = l.p.maxN() / l.line * l.line;
    if (tile < 1) {
      tile = l.p.maxN();
    }
    for (int n0 = 0; n0 < n; n0 += tile) {
      int nn = Math.min(tile, n - n0);
      b.gemm(mRows, k, nn, x, xStride, l.sWT + n0, wStride, l.sY + 4L * n0, l.yStride);
    }
  }
}
