package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.dsp.DspAssembler;
import org.llmnpu.isa.dsp.DspInterleave;
import org.llmnpu.isa.dsp.DspKernels;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * The Vector DSP programs {@link DspRoutines} writes itself with {@link DspAssembler} rather than compiling a kernel:
 * {@link #scale} (dequantization and residual), {@link #quantizeStatic} (static INT8 quantization), {@link #scatter}
 * (head half-vectors to rows of their own) and {@link #sumPartials} (K-chunk partial sums), each over rows of
 * {@code lanes} elements in a {@link #rowPass}: straight-line code for one row, rows interleaved on a pipelined DSP
 * ({@link DspInterleave}, as deep as {@link DspKernels.Options#interleaveRows()}), else a plain loop. Numerics and
 * instruction counts: see {@link DspRoutines}' class comment; {@link DspRoutines} memoizes them by operands.
 */
final class DspRowPrograms {
  /** Registers scale and sumPartials never use: the interleaved copies' registers. */
  private static final List<Integer> SCALE_FREE = registers(6, 31);
  private final int lanes;
  private final DspKernels.Options options;

  /** Programs for a DSP of {@code lanes} lanes whose kernels are compiled with {@code options}. */
  DspRowPrograms(int lanes, DspKernels.Options options) {
    this.lanes = lanes;
    this.options = options;
  }

  private static List<Integer> registers(int first, int last) {
    List<Integer> r = new ArrayList<>();
    for (int i = first; i <= last; i++) {
      r.add(i);
    }
    return r;
  }

  private int rows(int elements) {
    return (elements + lanes - 1) / lanes;
  }

  /**
   * A pass over {@code rows} rows whose body handles each row on its own: straight-line code for one row
   * (the same instructions without the {@code LOOP}; idx is 0 either way), rows interleaved
   * ({@link DspInterleave}, as many per iteration as the options say, in the registers {@code free}) when
   * {@code interleave} and the DSP is pipelined, else a plain loop. The length is {@code len} before and after.
   */
  void rowPass(DspAssembler a, int rows, int len, List<Integer> free, boolean interleave, Runnable body) {
    if (interleave && options.interleave()) {
      rowPass(a, rows, len, free, options.interleaveRows(), body);
    } else if (rows == 1) {
      body.run();
    } else {
      a.loop(rows, body);
    }
  }

  /** As above, interleaved {@code copies} rows deep on a pipelined DSP. */
  void rowPass(DspAssembler a, int rows, int len, List<Integer> free, int copies, Runnable body) {
    if (rows == 1) {
      body.run();
    } else if (options.interleave()) {
      DspInterleave.emit(a, a.capture(body), rows, lanes, len, free, copies);
    } else {
      a.loop(rows, body);
    }
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
    rowPass(a, rows(len), len, SCALE_FREE, true, () -> {
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

  /** See {@link DspRoutines#quantizeStatic}; {@code d} to rows {@code scaleRow .. scaleRow + scaleRows − 1}. */
  DspProgram quantizeStatic(int in, int len, int vec, short k, int out, int scaleRow, int scaleRows, short d) {
    DspAssembler a = new DspAssembler();
    final int kr = 1;
    final int dr = 2;
    final int x = 3;
    final int v = 4;
    a.li(kr, k & 0xFFFF).li(dr, d & 0xFFFF);
    a.setLength(len);
    rowPass(a, rows(len), len, SCALE_FREE, true, () -> {
      a.load(x, in);
      if (vec >= 0) {
        a.load(v, vec).op(DspOp.MUL16, x, x, v);
      }
      a.aux(DspOp.TOINT, 0, x, x, kr).store(out, x);
    });
    if (scaleRows == 1) {
      a.setLength(lanes).store(scaleRow, dr);
    } else {
      a.setLength(lanes * scaleRows).loop(scaleRows, () -> a.store(scaleRow, dr));
    }
    return a.finish("quantizeStatic " + len + " @" + in + (vec >= 0 ? "*" + vec : "") + "->" + out + "/" + scaleRow
        + (scaleRows == 1 ? "" : "x" + scaleRows));
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
   * Row {@code row} moved {@code shift} lanes down in place (lane i takes lane i + shift, the top {@code shift} lanes
   * zeros): LSHIFT by the powers of two of {@code shift}, as {@link #scatter}.
   */
  DspProgram shiftDown(int row, int shift) {
    DspAssembler a = new DspAssembler();
    a.emit(DspOp.SETLEN, 0, 0, 0, 0, false, 0, lanes);
    a.load(1, row);
    for (int b = 1; b < lanes; b <<= 1) {
      if ((shift & b) != 0) {
        a.emit(DspOp.LSHIFT, 1, 1, 0, 0, false, 0, b);
      }
    }
    a.store(row, 1);
    return a.finish("shift " + row + " down " + shift);
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
    rowPass(a, partRows, len, SCALE_FREE, true, () -> {
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
