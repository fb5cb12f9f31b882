package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspKernels;
import org.llmnpu.isa.dsp.DspLayout;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * The RMSNorm kernel emitted with its sum of squares rotated ({@link DspKernels.Options#rotateSumOfSquares()}) is,
 * instruction for instruction and word for word, what the lowering's pattern rewrite ({@link DspSumRotation}) made of
 * the plain kernel: every RMSNorm shape the lowering uses (stories260K's dim 64, the GQA shape's 128, LLaMA's 3072 and
 * 4096 on edge-64's 64 lanes) and more, at the operand rows the lowering passes, on 1 to 4 execute stages.
 */
class DspSumRotationEquivalenceTest {
  @Test
  void emittedRotationEqualsThePatternRewriteOfTheLowering() {
    int compared = 0;
    int rotated = 0;
    int wholeRows = 0;
    for (int lanes : new int[] {4, 8, 16, 32, 64}) {
      for (int stages = 1; stages <= 4; stages++) {
        MachineParams.DspParams dsp = new MachineParams.DspParams(lanes, 16384, 512, 12, 2, 1L << 32, stages);
        DspRoutines routines = new DspRoutines(dsp, 1e-5f);
        for (int len : new int[] {2 * lanes, 3 * lanes, 64, 128, 172, 288, 768, 2048, 3072, 4096, 5120, 8192}) {
          int rows = (len + lanes - 1) / lanes;
          for (int[][] operands : new int[][][] {{{0, 1}, {2}}, {{0, 0}, {0}}, {{8, 9}, {10}},
              {{0, rows}, {2 * rows}}, {{3 * rows + 5, 7}, {rows + 11}}}) {
            DspProgram rewritten = routines.kernel(DspKernel.RMSNORM, len, operands[0], operands[1]);
            DspProgram emitted = relocated(DspKernels.compile(DspKernel.RMSNORM, len, lanes, 1e-5f, DspMath.DEFAULT,
                dsp.kernelOptions().withSumOfSquaresRotated(stages > 1)), len, lanes, operands[0], operands[1]);
            String shape = "len " + len + " lanes " + lanes + " stages " + stages;
            assertEquals(rewritten.instructions(), emitted.instructions(), shape);
            assertArrayEquals(rewritten.words(), emitted.words(), shape);
            assertEquals(rewritten.name().endsWith("(sum of squares rotated)"),
                emitted.name().endsWith("(sum of squares rotated)"), shape);
            compared++;
            wholeRows += stages > 1 && len % lanes == 0 && rows >= 3 ? 1 : 0;
            rotated += emitted.name().endsWith("(sum of squares rotated)") ? 1 : 0;
          }
        }
      }
    }
    assertEquals(5 * 4 * 12 * 5, compared);
    assertEquals(wholeRows, rotated, "programs rotated (every one of whole rows, at least three, on 2 to 4 stages)");
  }

  /** The kernel's loads and stores moved from its {@link DspLayout} rows to the operand rows {@code in}, {@code out}. */
  private static DspProgram relocated(DspProgram kernel, int len, int lanes, int[] in, int[] out) {
    DspLayout layout = new DspLayout(DspKernel.RMSNORM, len, lanes);
    List<DspInstruction> code = new ArrayList<>();
    for (DspInstruction i : kernel.instructions()) {
      int imm = i.imm();
      if (i.op() == DspOp.LD || i.op() == DspOp.ST) {
        imm = -1;
        for (int o = 0; o < in.length && imm < 0; o++) {
          int offset = i.imm() - layout.inputBase(o);
          imm = offset >= 0 && offset < layout.inputRows() ? in[o] + offset : -1;
        }
        for (int o = 0; o < out.length && imm < 0; o++) {
          int offset = i.imm() - layout.outputBase(o);
          imm = offset >= 0 && offset < layout.outputRows() ? out[o] + offset : -1;
        }
      }
      code.add(new DspInstruction(i.op(), i.rd(), i.ra(), i.rb(), i.rc(), i.masked(), i.aux(), imm));
    }
    return new DspProgram(kernel.name(), code);
  }
}
