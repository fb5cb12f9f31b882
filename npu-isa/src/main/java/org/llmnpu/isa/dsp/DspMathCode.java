package org.llmnpu.isa.dsp;

import static org.llmnpu.isa.dsp.DspOp.ABS;
import static org.llmnpu.isa.dsp.DspOp.ADD16;
import static org.llmnpu.isa.dsp.DspOp.EXPO;
import static org.llmnpu.isa.dsp.DspOp.FIX;
import static org.llmnpu.isa.dsp.DspOp.FROMINT;
import static org.llmnpu.isa.dsp.DspOp.IADD;
import static org.llmnpu.isa.dsp.DspOp.IHALF;
import static org.llmnpu.isa.dsp.DspOp.ISUB;
import static org.llmnpu.isa.dsp.DspOp.MUL16;
import static org.llmnpu.isa.dsp.DspOp.NEGABS;
import static org.llmnpu.isa.dsp.DspOp.SCALB16;
import static org.llmnpu.isa.dsp.DspOp.SELNEG;
import static org.llmnpu.isa.dsp.DspOp.SUB16;
import static org.llmnpu.isa.dsp.DspOp.TCOEF;
import static org.llmnpu.isa.dsp.DspOp.TOINT;
import static org.llmnpu.isa.dsp.DspOp.TSEG;
import static org.llmnpu.isa.dsp.DspOp.TSTART;
import static org.llmnpu.isa.dsp.DspKernels.LN2_HI;
import static org.llmnpu.isa.dsp.DspKernels.LN2_LO;
import static org.llmnpu.isa.dsp.DspKernels.LOG2E;
import static org.llmnpu.isa.dsp.DspKernels.MINUS_HALF;
import static org.llmnpu.isa.dsp.DspKernels.ONE;
import static org.llmnpu.isa.dsp.DspKernels.TEMPS;
import static org.llmnpu.isa.dsp.DspKernels.THREE_HALVES;
import static org.llmnpu.isa.dsp.DspKernels.TWO;
import static org.llmnpu.isa.dsp.DspKernels.ZERO;

/**
 * The math functions of {@link DspKernels}' programs, emitted into its assembler: exp, reciprocal and rsqrt
 * ({@code Fp16Math}: range reduction, a degree-2 table polynomial whose Horner steps are {@code FMA16}, a Newton
 * step and a {@code FIX} of the special cases; 15, 17 and 20 instructions) and {@code Activations.timesSigmoid}
 * (40 instructions). Registers are the kernels' ({@link DspKernels#TEMPS} as temporaries).
 */
final class DspMathCode {
  private static final int EXP_SLOT = 0;
  private static final int RECIPROCAL_SLOT = 1;
  private static final int RSQRT_SLOT = 2;
  private static final int INT8 = 0;
  private static final int FP16_EXPONENT = 0;
  private final DspAssembler a;
  private final DspMath math;

  DspMathCode(DspAssembler a, DspMath math) {
    this.a = a;
    this.math = math;
  }

  /** acc = table polynomial of v (v kept), Horner steps fused: 8 instructions for degree 2. */
  private void poly(int slot, int v, int u, int seg, int acc, int coef) {
    int d = math.table(slot).degree();
    a.aux(TSEG, slot, seg, v, 0).aux(TSTART, slot, acc, seg, 0).op(SUB16, u, v, acc)
        .aux(TCOEF, slot | (d << 2), acc, seg, 0);
    for (int k = d - 1; k >= 0; k--) {
      a.aux(TCOEF, slot | (k << 2), coef, seg, 0).fma(acc, acc, u, coef);
    }
  }

  /** t[5] = EXP_TABLE(r) and t[0] = k of {@code Fp16Math.expParts(x)}, before its special cases. */
  private void expCore(int x, int[] t) {
    int k = t[0];
    int r = t[1];
    int b = t[2];
    a.aux(TOINT, INT8, k, x, LOG2E).op(FROMINT, r, k, LN2_HI).op(SUB16, r, x, r).op(FROMINT, b, k, LN2_LO)
        .op(SUB16, r, r, b);
    poly(EXP_SLOT, r, t[3], t[4], t[5], t[6]);
  }

  /** dst = Fp16Math.exp(x): 15 instructions. */
  void exp(int dst, int x) {
    expCore(x, TEMPS);
    a.op(SCALB16, TEMPS[5], TEMPS[5], TEMPS[0]).aux(FIX, DspFix.EXP.code(), dst, x, TEMPS[5]);
  }

  /** dst = Fp16Math.reciprocal(x) with temporaries t[0..5]: 17 instructions. */
  void reciprocal(int dst, int x, int[] t) {
    int e = t[0];
    int m = t[1];
    int seg = t[3];
    int acc = t[4];
    a.op(ABS, m, x, 0).aux(EXPO, FP16_EXPONENT, e, m, 0).op(ISUB, e, ZERO, e).op(SCALB16, m, m, e);
    poly(RECIPROCAL_SLOT, m, t[2], seg, acc, t[5]);
    a.op(MUL16, seg, m, acc).op(SUB16, seg, TWO, seg).op(MUL16, acc, acc, seg).op(SCALB16, acc, acc, e)
        .aux(FIX, DspFix.RECIPROCAL.code(), dst, x, acc);
  }

  /** dst = Fp16Math.rsqrt(x) with temporaries t[0..5]: 20 instructions. */
  void rsqrt(int dst, int x, int[] t) {
    int e = t[0];
    int m = t[1];
    int u = t[2];
    int seg = t[3];
    int acc = t[4];
    a.aux(EXPO, FP16_EXPONENT, e, x, 0).op(IHALF, e, e, 0).op(IADD, u, e, e).op(ISUB, u, ZERO, u)
        .op(SCALB16, m, x, u).op(ISUB, e, ZERO, e);
    poly(RSQRT_SLOT, m, u, seg, acc, t[5]);
    a.op(MUL16, seg, m, acc).op(MUL16, seg, seg, acc).fma(seg, MINUS_HALF, seg, THREE_HALVES)
        .op(MUL16, acc, acc, seg).op(SCALB16, acc, acc, e).aux(FIX, DspFix.RSQRT.code(), dst, x, acc);
  }

  /**
   * dst = Activations.timesSigmoid(x, v): both branches are computed in every lane and the sign
   * of v selects (the two branches share 1/(1 + e^−|v|), which is the same value in both: where
   * they differ, e^−|v| &lt; 2^−25 vanishes in 1 + e^−|v|). 40 instructions.
   */
  void timesSigmoid(int dst, int x, int v) {
    int na = TEMPS[7];
    int p = TEMPS[8];
    int k = TEMPS[0];
    int q = TEMPS[6];
    a.op(NEGABS, na, v, 0);
    expCore(na, TEMPS);
    a.aux(FIX, DspFix.EXP_PARTS.code(), p, na, TEMPS[5]);
    a.op(SCALB16, q, p, k).aux(FIX, DspFix.EXP.code(), q, na, q).op(ADD16, q, ONE, q);
    int[] rt = {TEMPS[1], TEMPS[2], TEMPS[3], TEMPS[4], TEMPS[5], TEMPS[7]};
    reciprocal(q, q, rt);
    int negative = TEMPS[1];
    int positive = TEMPS[2];
    a.op(MUL16, negative, x, p).op(MUL16, negative, negative, q).op(SCALB16, negative, negative, k)
        .op(MUL16, positive, x, q).emit(SELNEG, dst, negative, positive, v, false, 0, 0);
  }
}
