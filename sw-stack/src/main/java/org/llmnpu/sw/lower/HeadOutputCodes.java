package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.dsp.DspAssembler;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * A token's attention outputs dequantized and quantized in one DSP run ({@code --fusion full}, issue 32): every head's
 * P·V result rows {@code y = (o · s_h) · c} (its probabilities' scale row {@code s_h}, the constant {@code c}), stored,
 * and folded into the absmax of the whole output vector, then the quantization's chain ({@link DspQuantChain}), its
 * codes and scale. Separately these were one {@code scale} run a head (a two-row program on edge-64: 15 instructions
 * for 8 of element work) and the quantization's own absmax pass over the rows the scales had just stored.
 *
 * <p>The heads' rows are straight-line code, four rows in flight (their loads, products, stores and absolute values
 * in turn: no instruction waits for the one it reads), each of the four with a maximum of its own, folded at the end
 * (max is exact in any order). Every element sees the separate runs' instructions in their order (two FP16 products,
 * then the quantization's {@code |y|}, {@code TOINT} of the stored y): the codes and the scale are theirs bit for bit.
 * About 6 instructions a row plus a load a head; {@link #program} answers null when the rows are not whole ({@code
 * len} a multiple of the lanes) or the registers do not hold a head's scale per row in flight.
 */
final class HeadOutputCodes {
  private static final int IN_FLIGHT = 4;
  private static final int C = 1;
  private static final int X = 2;
  private static final int T = X + IN_FLIGHT;
  private static final int ACC = T + IN_FLIGHT;
  private static final int S = ACC + IN_FLIGHT;
  private static final int[] CONSTANTS = {S + IN_FLIGHT, S + IN_FLIGHT + 1, S + IN_FLIGHT + 2, S + IN_FLIGHT + 3,
      S + IN_FLIGHT + 4, S + IN_FLIGHT + 5};
  private static final int E = CONSTANTS[5] + 1;
  private static final int NEG = E + 1;
  private static final int D = E + 2;
  private static final int Y = E + 3;

  private HeadOutputCodes() {
  }

  /**
   * The program for {@code heads} heads of {@code rowsPerHead} rows each from row {@code in} (head h at
   * {@code in + h·rowsPerHead}), head h's scale at row {@code scales + h}, the dequantized rows to {@code of}, their
   * INT8 codes to {@code out} and d broadcast to {@code scaleRow}; on {@code lanes} lanes. Null where it does not apply.
   */
  static DspProgram program(DspRoutines r, int in, int heads, int rowsPerHead, int scales, short c, int of, int out,
      int scaleRow) {
    int lanes = r.lanes();
    int rows = heads * rowsPerHead;
    int len = rows * lanes;
    if (Y >= DspInstruction.REGISTERS || rowsPerHead < 1) {
      return null;
    }
    DspAssembler a = new DspAssembler();
    a.li(C, c & 0xFFFF);
    for (int k = 0; k < IN_FLIGHT; k++) {
      a.li(ACC + k, 0);
    }
    a.setLength(len);
    for (int first = 0; first < rows; first += IN_FLIGHT) {
      int n = Math.min(IN_FLIGHT, rows - first);
      int f = first;
      List<Integer> scaleOf = new ArrayList<>();
      for (int k = 0; k < n; k++) {
        int head = (f + k) / rowsPerHead;
        if (k == 0 || head != (f + k - 1) / rowsPerHead) {
          a.load(S + k, scales + head);
          scaleOf.add(S + k);
        } else {
          scaleOf.add(scaleOf.get(k - 1));
        }
      }
      each(n, k -> a.load(X + k, in + f + k));
      each(n, k -> a.op(DspOp.MUL16, X + k, X + k, scaleOf.get(k)));
      each(n, k -> a.op(DspOp.MUL16, X + k, X + k, C));
      each(n, k -> a.store(of + f + k, X + k));
      each(n, k -> a.op(DspOp.ABS, T + k, X + k, 0));
      each(n, k -> a.masked(DspOp.MAX16, ACC + k, ACC + k, T + k));
    }
    a.op(DspOp.MAX16, ACC, ACC, ACC + 1).op(DspOp.MAX16, ACC + 2, ACC + 2, ACC + 3).op(DspOp.MAX16, ACC, ACC, ACC + 2);
    for (int k = 0; k < CONSTANTS.length; k++) {
      a.li(CONSTANTS[k], DspQuantChain.CONSTANTS[k]);
    }
    DspQuantChain.emit(a, lanes, new DspQuantChain.Registers(ACC, T, E, NEG, D, Y, CONSTANTS[0], CONSTANTS[1],
        CONSTANTS[2], CONSTANTS[3], CONSTANTS[4], CONSTANTS[5]));
    List<Integer> free = new ArrayList<>();
    for (int reg = Y + 1; reg < DspInstruction.REGISTERS; reg++) {
      free.add(reg);
    }
    r.rowPass(a, rows, len, free, true, () -> a.load(X, of).aux(DspOp.TOINT, 0, X, X, Y).store(out, X));
    a.setLength(lanes).store(scaleRow, D);
    DspProgram p = a.finish("output codes " + heads + "x" + rowsPerHead + " @" + in + "*" + scales + "->" + of + "->"
        + out + "/" + scaleRow);
    return p.size() <= r.programDepth() ? p : null;
  }

  private static void each(int n, java.util.function.IntConsumer step) {
    for (int k = 0; k < n; k++) {
      step.accept(k);
    }
  }
}
