package org.llmnpu.isa.dsp;

import static org.llmnpu.isa.dsp.DspOp.ADD32;
import static org.llmnpu.isa.dsp.DspOp.MUL32;
import static org.llmnpu.isa.dsp.DspOp.WIDEN;

import java.util.function.IntFunction;

/**
 * RMSNorm's sum of squares software-pipelined for a DSP with several execute stages
 * ({@link DspKernels.Options#rotateSumOfSquares()}, issue 32). The plain pass is a loop whose body handles one row,
 * {@code LD x; WIDEN w, x; MUL32 w, w, w; ADD32 s, s, w} (the add masked), and each instruction reads the FP result of
 * the one before it: on the four-stage DSP every row waits 3 + 3 cycles, 10 cycles a row for 4 instructions. Rotated,
 * iteration i loads and widens row i + 2, squares row i + 1 and adds row i:
 * {@code LD x ← row i+2; ADD32 s += m; MUL32 m = w·w; WIDEN w, x}, with a prologue (row 0 widened and squared, row 1
 * widened) and an epilogue (the last two rows added). Each value is read an iteration after it is written, so only the
 * add waits, one cycle: 5 cycles a row. 13 instructions in place of 5.
 *
 * <p><b>Same results.</b> Every row sees the same instructions, and the adds run in row order into the same
 * accumulator (FP32 addition is not associative: the order is the golden {@code Norms}'): the sum, and all that
 * follows, is bit for bit the plain pass's. The masked add of row i runs in iteration i (idx = i), so its mask is the
 * plain pass's; the epilogue's two adds run outside the loop (idx 0), which masks correctly only for whole rows: the
 * rotation applies when the length is a whole number of rows ({@code len = rows · lanes}), at least three, and a
 * register is free for the squares (m, the highest one the rest of the program does not name).
 */
final class DspSumOfSquares {
  /** The register argument of {@link #compile}'s compiler that asks for the plain pass. */
  static final int PLAIN = -1;

  private DspSumOfSquares() {
  }

  /**
   * What {@code compiler} compiles with the squares in the register it is given ({@link #PLAIN}: the plain pass): the
   * plain program where the rotation does not apply or no register is free, else the rotated one, its squares in the
   * highest register the plain program leaves free (the rotation changes nothing else in the program).
   */
  static DspProgram compile(DspKernel kernel, int len, int lanes, DspKernels.Options options,
      IntFunction<DspProgram> compiler) {
    DspProgram plain = compiler.apply(PLAIN);
    if (!rotates(kernel, len, lanes, options)) {
      return plain;
    }
    int squares = highestFreeRegister(plain);
    return squares == PLAIN ? plain : compiler.apply(squares);
  }

  /** Whether {@code kernel} of {@code len} elements on {@code lanes} lanes gets the rotated pass with {@code options}. */
  static boolean rotates(DspKernel kernel, int len, int lanes, DspKernels.Options options) {
    return kernel == DspKernel.RMSNORM && options.rotateSumOfSquares() && !options.fma32() && len % lanes == 0
        && len / lanes >= 3;
  }

  /**
   * Emits the rotated pass over {@code rows} rows from buffer row {@code row}: x loaded into {@code x}, widened into
   * {@code w}, squared into {@code squares} and added (masked) into {@code sum}.
   */
  static void emitRotated(DspAssembler a, int row, int rows, int x, int w, int squares, int sum) {
    a.load(x, row).op(WIDEN, w, x, 0).load(x, row + 1).op(MUL32, squares, w, w).op(WIDEN, w, x, 0);
    a.loop(rows - 2, () -> a.load(x, row + 2).masked(ADD32, sum, sum, squares).op(MUL32, squares, w, w)
        .op(WIDEN, w, x, 0));
    a.masked(ADD32, sum, sum, squares).op(MUL32, squares, w, w).masked(ADD32, sum, sum, squares);
  }

  /** The highest register (above 0) no instruction of {@code program} names, or {@link #PLAIN}: none. */
  private static int highestFreeRegister(DspProgram program) {
    boolean[] used = new boolean[DspInstruction.REGISTERS];
    for (DspInstruction in : program.instructions()) {
      used[in.rd()] = used[in.ra()] = used[in.rb()] = used[in.rc()] = true;
    }
    for (int r = DspInstruction.REGISTERS - 1; r > 0; r--) {
      if (!used[r]) {
        return r;
      }
    }
    return PLAIN;
  }
}
