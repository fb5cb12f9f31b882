package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.dsp.DspAssembler;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspKernels;
import org.llmnpu.isa.dsp.DspLayout;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.numerics.fp16.Fp16;

/**
 * The Vector DSP programs of the lowered decoder, each for operands at given buffer rows:
 * the compiled {@link DspKernels} (RMSNorm, RoPE, SoftMax, SwiGLU; interleaved for a pipelined DSP) relocated from their
 * {@link DspLayout} rows to ours, and three programs written here with {@link DspAssembler}:
 * <ul>
 *   <li>{@link #quantize}: dynamic symmetric INT8 quantization of an FP16 vector (optionally times
 *   a vector first): {@code d = max(absmax, 2^-8)/127} (FP16), {@code q = saturate(rint(x · 127/absmax))},
 *   the reciprocal by four Newton steps from {@code 0.75·2^-floor(log2 absmax)} (relative error
 *   below 2^-16 before FP16 rounding); writes the INT8 codes (low byte of each element) and
 *   {@code d} broadcast over one row. Cycles: 16 + 2·rows·(3 or 5) + 2·log2(lanes) + 16.</li>
 *   <li>{@link #scale}: dequantization and residual, {@code y = ((a·s)·v)·c + r} with a broadcast
 *   scale row s, a per-element vector v, an FP16 constant c and a residual r, each optional,
 *   rounded to FP16 after every step.</li>
 *   <li>{@link #scatter}: moves each head's half-vector to lanes 0.. of its own row (LSHIFT by
 *   powers of two), so that a {@code dspout} can write it as a weight column.</li>
 *   <li>{@link #sumPartials}: the K-chunk partial sums of one GEMM result (each already FP16 by
 *   {@code dspin}), optionally each times its group's FP16 scale vector, summed in FP32 and
 *   rounded once to FP16: {@code out = fp16(Σ_c widen(p_c) · widen(s_c))} (the products of two
 *   FP16 values are exact in FP32). Instructions: 4 + rows·(4 + 3·(parts − 1)), with scales
 *   4 + rows·(7 + 6·(parts − 1)).</li>
 * </ul>
 */
final class DspRoutines {
  private static final short GUARD = 0x1C00; // 2^-8
  private final int lanes;
  private final float eps;
  private final DspKernels.Options options;

  /**
   * Routines for the DSP {@code dsp}: its lanes, and its kernels compiled with
   * {@link org.llmnpu.isa.MachineParams.DspParams#kernelOptions()} (on a pipelined DSP rows interleaved as
   * deep as the execute stages, so that the interlock finds independent work; same results).
   */
  DspRoutines(org.llmnpu.isa.MachineParams.DspParams dsp, float eps) {
    this.lanes = dsp.lanes();
    this.eps = eps;
    this.options = dsp.kernelOptions();
  }

  int rows(int elements) {
    return (elements + lanes - 1) / lanes;
  }

  /** A compiled kernel whose inputs start at {@code in[i]} and outputs at {@code out[i]}. */
  DspProgram kernel(DspKernel kernel, int len, int[] in, int[] out) {
    DspProgram p = DspKernels.compile(kernel, len, lanes, eps, DspMath.DEFAULT, options);
    DspLayout layout = new DspLayout(kernel, len, lanes);
    List<DspInstruction> code = new ArrayList<>();
    for (DspInstruction i : p.instructions()) {
      if (i.op() == DspOp.LD || i.op() == DspOp.ST) {
        code.add(new DspInstruction(i.op(), i.rd(), i.ra(), i.rb(), i.rc(), i.masked(), i.aux(),
            relocate(layout, i.imm(), in, out)));
      } else {
        code.add(i);
      }
    }
    return new DspProgram(p.name() + " @" + java.util.Arrays.toString(in) + "->" + java.util.Arrays.toString(out), code);
  }

  private static int relocate(DspLayout layout, int row, int[] in, int[] out) {
    for (int i = 0; i < in.length; i++) {
      int base = layout.inputBase(i);
      if (row >= base && row < base + layout.inputRows()) {
        return in[i] + row - base;
      }
    }
    for (int i = 0; i < out.length; i++) {
      int base = layout.outputBase(i);
      if (row >= base && row < base + layout.outputRows()) {
        return out[i] + row - base;
      }
    }
    throw new IllegalStateException("kernel row " + row + " belongs to no operand");
  }

  /**
   * Dynamic INT8 quantization of {@code len} elements at {@code in} (times the vector at {@code vec}
   * when {@code vec ≥ 0}): codes to {@code out}, the dequantization scale {@code absmax/127} to
   * every lane of row {@code scaleRow}.
   */
  DspProgram quantize(int in, int len, int vec, int out, int scaleRow) {
    DspAssembler a = new DspAssembler();
    final int zero = 0;
    final int two = 1;
    final int c127 = 2;
    final int inv127 = 3;
    final int guard = 4;
    final int c075 = 5;
    final int acc = 6;
    final int x = 7;
    final int v = 8;
    final int t = 9;
    final int d = 10;
    final int e = 11;
    final int y = 12;
    final int neg = 13;
    final int inv = 15;
    final int q = 16;
    a.li(zero, 0).li(two, 0x4000).li(c127, Fp16.fromFloat(127f) & 0xFFFF)
        .li(inv127, Fp16.fromDouble(1.0 / 127) & 0xFFFF).li(guard, GUARD).li(c075, 0x3A00).li(acc, 0);
    a.emit(DspOp.SETLEN, 0, 0, 0, 0, false, 0, len);
    int rows = rows(len);
    a.loop(rows, () -> {
      a.load(x, in);
      if (vec >= 0) {
        a.load(v, vec).op(DspOp.MUL16, x, x, v);
      }
      a.op(DspOp.ABS, x, x, 0).masked(DspOp.MAX16, acc, acc, x);
    });
    for (int width = lanes; width > 1; width /= 2) {
      a.emit(DspOp.LSHIFT, t, acc, 0, 0, false, 0, width / 2);
      a.op(DspOp.MAX16, acc, acc, t);
    }
    a.op(DspOp.BCAST, acc, acc, 0).op(DspOp.MAX16, acc, acc, guard).op(DspOp.MUL16, d, acc, inv127);
    a.aux(DspOp.EXPO, 0, e, acc, 0).op(DspOp.ISUB, e, zero, e).op(DspOp.SCALB16, y, c075, e)
        .op(DspOp.NEGABS, neg, acc, 0);
    for (int i = 0; i < 4; i++) {
      a.fma(t, neg, y, two).op(DspOp.MUL16, y, y, t);
    }
    a.op(DspOp.MUL16, inv, y, c127);
    a.loop(rows, () -> {
      a.load(x, in);
      if (vec >= 0) {
        a.load(v, vec).op(DspOp.MUL16, x, x, v);
      }
      a.aux(DspOp.TOINT, 0, q, x, inv).store(out, q);
    });
    a.emit(DspOp.SETLEN, 0, 0, 0, 0, false, 0, lanes);
    a.store(scaleRow, d);
    return a.finish("quantize " + len + " @" + in + (vec >= 0 ? "*" + vec : "") + "->" + out + "/" + scaleRow);
  }

  /**
   * {@code out = ((in · s) · vec) · c + res} over {@code len} elements; {@code s} is row
   * {@code scaleRow} (lane by lane, a broadcast value), each of scaleRow, vec, res is skipped when
   * negative and c when it is {@code null}.
   */
  DspProgram scale(int in, int len, int scaleRow, int vec, Short c, int res, int out) {
    DspAssembler a = new DspAssembler();
    final int k = 1;
    final int s = 2;
    final int x = 3;
    final int v = 4;
    final int r = 5;
    if (c != null) {
      a.li(k, c & 0xFFFF);
    }
    if (scaleRow >= 0) {
      a.load(s, scaleRow);
    }
    a.emit(DspOp.SETLEN, 0, 0, 0, 0, false, 0, len);
    a.loop(rows(len), () -> {
      a.load(x, in);
      if (scaleRow >= 0) {
        a.op(DspOp.MUL16, x, x, s);
      }
      if (vec >= 0) {
        a.load(v, vec).op(DspOp.MUL16, x, x, v);
      }
      if (c != null) {
        a.op(DspOp.MUL16, x, x, k);
      }
      if (res >= 0) {
        a.load(r, res).op(DspOp.ADD16, x, x, r);
      }
      a.store(out, x);
    });
    return a.finish("scale " + len + " @" + in + "*" + scaleRow + "*" + vec + "*" + c + "+" + res + "->" + out);
  }

  /**
   * Moves the half-vectors of {@code heads} heads, {@code half} elements each, of two parts (evens
   * then odds, each {@code heads·half} elements from row {@code in}) to lanes 0.. of rows
   * {@code out + part·heads + h}. Needs {@code lanes} to be a multiple of {@code half}.
   */
  DspProgram scatter(int in, int heads, int half, int out) {
    if (lanes % half != 0) {
      throw new IllegalArgumentException("head half-dimension " + half + " must divide the DSP lanes " + lanes);
    }
    DspAssembler a = new DspAssembler();
    a.emit(DspOp.SETLEN, 0, 0, 0, 0, false, 0, lanes);
    int partRows = rows(heads * half);
    for (int part = 0; part < 2; part++) {
      for (int h = 0; h < heads; h++) {
        int element = h * half;
        int row = in + part * partRows + element / lanes;
        int shift = element % lanes;
        a.load(1, row);
        for (int b = 1; b < lanes; b <<= 1) {
          if ((shift & b) != 0) {
            a.emit(DspOp.LSHIFT, 1, 1, 0, 0, false, 0, b);
          }
        }
        a.store(out + part * heads + h, 1);
      }
    }
    return a.finish("scatter " + heads + "x" + half + " @" + in + "->" + out);
  }

  /**
   * {@code out = fp16(Σ_{c < parts} widen(in_c) · widen(scale_c))} over {@code len} elements, part c
   * at rows {@code in + c·partRows} and its scale vector at {@code scales + c·partRows} (no
   * products when {@code scales} is negative); FP32 accumulation (WIDEN, MUL32, ADD32), one
   * rounding to FP16 (NARROW by 2^0); only lanes below {@code len} are written.
   */
  DspProgram sumPartials(int in, int parts, int partRows, int len, int scales, int out) {
    DspAssembler a = new DspAssembler();
    final int zero = 1;
    final int acc = 2;
    final int x = 3;
    final int s = 4;
    a.li(zero, 0);
    a.emit(DspOp.SETLEN, 0, 0, 0, 0, false, 0, len);
    a.loop(partRows, () -> {
      for (int c = 0; c < parts; c++) {
        int target = c == 0 ? acc : x;
        a.load(target, in + c * partRows).op(DspOp.WIDEN, target, target, 0);
        if (scales >= 0) {
          a.load(s, scales + c * partRows).op(DspOp.WIDEN, s, s, 0).op(DspOp.MUL32, target, target, s);
        }
        if (c > 0) {
          a.op(DspOp.ADD32, acc, acc, x);
        }
      }
      a.op(DspOp.NARROW, acc, acc, zero).store(out, acc);
    });
    return a.finish("sum " + parts + "x" + len + " @" + in + (scales >= 0 ? "*" + scales : "") + "->" + out);
  }
}
