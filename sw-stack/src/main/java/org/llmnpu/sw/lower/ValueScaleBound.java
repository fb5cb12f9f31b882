package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.dsp.DspAssembler;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * The per-token bound of the attention's probability codes (issue 32): instead of quantizing each query's
 * probabilities times the V scales by their own absmax (an absmax pass, a reciprocal chain and a codes pass a query
 * head), every query head of token t codes its SoftMax numerators against one bound over the V scales of the token's
 * own causal slots {@code j < s}. Two DSP runs:
 * <ul>
 *   <li>{@link #weightsProgram}, once a layer and block: the V scales {@code s_j} of the block's slots rewritten in
 *       place to {@code u_j = fp16(127·s_j)} (the V vectors' absmax, about);</li>
 *   <li>{@link #tokenProgram}, once a token (a head group where the DSP lacks rows to keep it): {@code B_t =
 *       max(max_{j<s} u_j, 2^−8)}, {@code y_t ≈ 127/B_t} by the quantization's chain ({@link DspQuantChain}: reduction
 *       tree, guard, four Newton steps, ·127) and {@code f_t = fp16(B_t·F)} with the constant
 *       {@code F = fp16(2^(K−σ)/127²)} ({@link #factor}), broadcast to two rows.</li>
 * </ul>
 * Each query head's SoftMax run ({@link AttentionSoftmax#withCodes}) then stores {@code code_j =
 * TOINT(fp16(e_j·u_j)·y_t)} from its exp pass and the query's scale {@code fp16(r·f_t)} ({@code r = 1/Σe}); no absmax
 * pass, no chain, no codes pass. A token's codes depend on its own slots only, so they are the same whatever program
 * (chunked prefill, decode step, {@code --fusion}) computes it.
 *
 * <p><b>Numerics</b> (each step rounded to FP16 as the DSP does). As {@code e_j ≤ 1} (the row's max has e = 1),
 * {@code code_j ≈ 127·e_j·u_j/B_t} lies in 0..127 ({@code TOINT} saturates), and {@code p_j·s_j = e_j·s_j·r ≈
 * code_j·(B_t/127²)·r}. The P·V results {@code o·2^σ} are dequantized {@code (o·2^σ·fp16(r·f_t))·2^−K}
 * ({@link #OUTPUT_SCALE}) instead of with {@code 2^−σ} and the per-query absmax scale.
 *
 * <p><b>Range.</b> With {@code 2^−σ ≥ 127²·maxContext/2^15} and {@code r ≥ 1/maxContext} the scale
 * {@code r·B·2^(K−σ)/127²} is at least {@code B·2^(K−15)}, a normal FP16 for {@code B ≥ 2^(1−K)} even at the flattest
 * row of the longest context; with {@code 2^−σ < 2·127²·maxContext/2^15} it is at most {@code B·maxContext·2^(K−14)},
 * finite for {@code B ≤ 2^(30−K)/maxContext}. {@code K = 6}: V vectors of absmax 1/32 .. 1000 keep every scale normal
 * and finite.
 *
 * <p><b>Precision.</b> The codes' step is {@code B_t/127} in {@code e·u} instead of the row's own
 * {@code max(e·u)/127}: the same where the slot with e = 1 has the token's largest V scale, coarser by {@code B_t/u}
 * where it has a smaller one (stories260K: 0.56 bits on average).
 *
 * <p><b>Cycles</b> (edge-64's 64-lane four-stage DSP): the weights run 18 cycles at 256 slots; a token's bound 45
 * instructions, 95 cycles at up to 64 slots to 108 at 256 (its max pass, reduction tree and Newton steps one
 * dependent chain: about half of it interlock waits); each query head's SoftMax run 3 instructions a row more in its
 * exp pass and none of the normalization pass (3 a row), absmax pass (7 a row), chain (≈ 37) and codes pass (3 a row).
 * The 7B layer's SoftMax runs (256-token prefill): 1,638,144 → 1,232,353 cycles ({@code DspRunAnatomyBench},
 * 2026-12-06 17:10 UTC); 1,107,169 with the rows every head reads loaded once and the merged runs list-scheduled ({@link DspListSchedule},
 * 20:23 UTC).
 *
 * <p><b>An exact per-row bound</b> (the row's own {@code max(e·u)} from {@code max_j(x_j + ln u_j)} in the max pass,
 * {@code ln u_j} written beside the weights) was worked out and not taken: about 7 instructions a row more in a
 * three-head run's max pass, a second reduction tree and per head an exp for {@code y} and {@code f} before the exp
 * pass (≈ 140 cycles a three-head run), less the token's bound run: ≈ +0.4 M cycles a 7B layer, all with the GEMM
 * back-end idle (up to +2.4 % int8, +3.7 % s2_4 TTFT), for the 0.54 bits the paired accuracy runs do not resolve
 * (sw-stack README).
 */
final class ValueScaleBound {
  /** K: the power of two the scale carries and the output's dequantization takes off again. */
  static final int SHIFT = 6;
  /** {@code 2^−K}: the P·V results' dequantization constant (instead of {@code 2^−σ}). */
  static final short OUTPUT_SCALE = LoweringEmitter.half(Math.scalb(1.0, -SHIFT));
  /** DSP rows a token's bound takes: {@code y_t}, then {@code f_t}, each broadcast. */
  static final int ROWS = 2;

  private static final int ZERO = 0;
  private static final int TWO = 1;
  private static final int C127 = 2;
  private static final int INV127 = 3;
  private static final int GUARD = 4;
  private static final int C075 = 5;
  private static final int ACC = 6;
  private static final int T = 7;
  private static final int E = 8;
  private static final int NEG = 9;
  private static final int D = 10;
  private static final int Y = 11;
  private static final int U = 12;
  private static final int F = 13;

  private ValueScaleBound() {
  }

  /** {@code F = fp16(2^(K − σ)/127²)} for the P·V GEMM's shift σ (its INT32 results enter the DSP as {@code o·2^σ}). */
  static short factor(int sigma) {
    return LoweringEmitter.half(Math.scalb(1.0, SHIFT - sigma) / (127.0 * 127.0));
  }

  /** Emits token's bound over its {@code s} slots' weights ({@code l.rDVV}) to rows {@code row, row + 1}. */
  static void emit(LoweringEmitter e, int s, int row) {
    e.run(e.l.r.tokenBound(e.l.rDVV, s, row, factor(LoweredModel.shift(e.l.m.maxContext()))));
  }

  /** {@code u_j = fp16(127·s_j)} in place over the {@code len} V scales from row {@code scales}. */
  static DspProgram weightsProgram(DspRoutines r, int scales, int len) {
    if (len < 1 || scales < 0) {
      throw new IllegalArgumentException("the V weights need len ≥ 1 and a row ≥ 0, got len " + len + ", row "
          + scales);
    }
    List<Integer> free = new ArrayList<>();
    for (int reg = F + 1; reg < DspInstruction.REGISTERS; reg++) {
      free.add(reg);
    }
    DspAssembler a = new DspAssembler();
    a.li(C127, DspQuantChain.CONSTANTS[2]).setLength(len);
    r.rowPass(a, r.rows(len), len, free, true, () -> a.load(U, scales).op(DspOp.MUL16, U, U, C127).store(scales, U));
    return a.finish("value weights " + len + " @" + scales);
  }

  /**
   * One token's bound over its {@code len} slots' weights {@code u} (from row {@code weights}, {@link #weightsProgram}):
   * {@code y_t} broadcast to row {@code boundRow}, {@code f_t} to {@code boundRow + 1}; {@code factor} the constant F
   * ({@link #factor}).
   */
  static DspProgram tokenProgram(DspRoutines r, int weights, int len, int boundRow, short factor) {
    if (len < 1 || weights < 0 || boundRow < 0) {
      throw new IllegalArgumentException("a token's V bound needs len ≥ 1 and rows ≥ 0, got len " + len + ", rows "
          + weights + ", " + boundRow);
    }
    DspAssembler a = new DspAssembler();
    for (int k = 0; k < DspQuantChain.CONSTANTS.length; k++) {
      a.li(ZERO + k, DspQuantChain.CONSTANTS[k]);
    }
    a.li(ACC, 0).setLength(len);
    r.rowPass(a, r.rows(len), len, List.of(), false, () -> a.load(U, weights).masked(DspOp.MAX16, ACC, ACC, U));
    DspQuantChain.emit(a, r.lanes(), new DspQuantChain.Registers(ACC, T, E, NEG, D, Y, ZERO, TWO, C127, INV127, GUARD,
        C075));
    a.li(F, factor & 0xFFFF).op(DspOp.MUL16, F, ACC, F).setLength(r.lanes()).store(boundRow, Y).store(boundRow + 1, F);
    return a.finish("token bound " + len + " @" + weights + "->" + boundRow);
  }
}
