package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.isa.dsp.DspPermutations;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * {@link KeyBlocks} on the golden ISA simulator of an NPU whose DSP has {@code permute}: a line of slots' K rows land
 * as Kᵀ columns, the line's later slots read 0, every other byte of Kᵀ is unchanged; its run's cycles are the
 * documented sum.
 */
class KeyBlocksTest {

  private static MachineParams permuteNpu() {
    MachineParams p = NpuTargets.defaultNpu();
    return p.withDsp(p.dsp().withPermute(true));
  }

  /** Writes {@code count} K rows as the line of slots from {@code first}; returns the blocks' chunk width. */
  private static int check(MachineParams p, int kvDim, int count, int first, int ctx, int dspRows, long seed) {
    int line = p.lineBytes();
    Random r = new Random(seed);
    byte[][] codes = KeyColumnsTest.codes(r, count, kvDim);
    int ktStride = LoweredModel.roundUp(ctx, line);
    byte[] before = new byte[kvDim * ktStride];
    r.nextBytes(before);
    int rowStride = LoweredModel.roundUp(kvDim, line) + line;
    long spadKt = (long) count * rowStride;
    byte[] image = new byte[(int) p.extMemBytes()];
    Program.Builder pb = Program.builder();
    CommandStream b = new CommandStream(CommandStream.program(pb), KeyColumnsTest.pool(image),
        p.dsp().programDepth(), false);
    DspRoutines routines = new DspRoutines(p.dsp(), 1e-5f);
    KeyBlocks kb = new KeyBlocks(p, kvDim, dspRows);
    b.load(KeyColumnsTest.ROWS, rowStride, 0, rowStride, rowStride, count);
    b.load(KeyColumnsTest.KT_IN, ktStride, spadKt, ktStride, ktStride, kvDim);
    kb.write(b, routines, 0, rowStride, count, 7, spadKt, ktStride, first);
    byte[] kt = KeyColumnsTest.runKt(p, image, b, pb, codes, rowStride, before, ktStride);
    for (int d = 0; d < kvDim; d++) {
      for (int j = 0; j < ktStride; j++) {
        byte want = j >= first + count && j < first + line ? 0
            : j >= first && j < first + count ? codes[j - first][d] : before[d * ktStride + j];
        assertEquals(want, kt[d * ktStride + j], "Kᵀ row " + d + " slot " + j);
      }
    }
    return kb.columns();
  }

  @Test
  void aWholeLineOfSlotsLandsAsColumns() {
    MachineParams p = permuteNpu();
    assertEquals(32, check(p, 32, 16, 0, 64, 1024, 1));
    assertEquals(64, check(p, 64, 16, 48, 64, 1024, 2));
  }

  @Test
  void aPartLineWritesZerosInItsLaterSlotsAndLeavesTheOtherLinesAlone() {
    MachineParams p = permuteNpu();
    check(p, 32, 13, 16, 50, 1024, 3);
    check(p, 48, 1, 32, 64, 1024, 4);
    check(p, 16, 7, 0, 16, 1024, 5);
  }

  @Test
  void aKvDimLargerThanTheRowsGoesInChunks() {
    MachineParams p = permuteNpu();
    // two 16×16 matrices take 32 rows of 16 lanes: chunks of 16 dimensions
    assertEquals(16, check(p, 64, 16, 16, 48, 40, 6));
    assertEquals(32, check(p, 96, 11, 0, 48, 64, 7));
  }

  @Test
  void theRunsCyclesAreTheDocumentedSum() {
    MachineParams p = permuteNpu();
    MachineParams.DspParams oneStage = p.dsp().withExecuteStages(1);
    int lanes = p.dsp().lanes();
    DspRoutines routines = new DspRoutines(oneStage, 1e-5f);
    for (int count : new int[] {16, 9, 1}) {
      DspProgram prog = routines.keyBlock(16, count, 64, 0, 64);
      long rows = count * 64L / lanes;
      long zeros = (16 - count) * 64L / lanes;
      // LI, SETLEN, the row pass (a LOOP and 3 a row), LI and a LOOP of stores, the transpose with its SETLEN and HALT
      long expected = 2 + 1 + 3 * rows + (zeros > 0 ? 2 + zeros : 0) + DspPermutations.transposeCycles(16, 64, lanes);
      assertEquals(expected, prog.cycles(oneStage.pipeline()), "count " + count);
    }
  }

  @Test
  void onADspWithoutPermuteTheBlocksDoNotApplyAndTheirRunMovesNothing() {
    MachineParams plain = NpuTargets.defaultNpu();
    assertEquals(0, KeyBlocks.columns(plain, 32, 1024));
    String m = assertThrows(IllegalArgumentException.class, () -> new KeyBlocks(plain, 32, 1024)).getMessage();
    assertTrue(m.contains("permute"), m);
    MachineParams p = permuteNpu();
    assertEquals(0, KeyBlocks.columns(p, 24, 1024), "kvDim not a multiple of the line");
    assertEquals(0, KeyBlocks.columns(p, 32, 31), "fewer rows than two line×line matrices");
    // the same program on the golden DSP without permute leaves the output rows as they were
    assertNotEquals(run(p), run(plain));
  }

  /** The first transposed element of a keyBlock run over rows 0.. with a 1 at element (0, 1). */
  private static int run(MachineParams p) {
    DspProgram prog = new DspRoutines(p.dsp(), 1e-5f).keyBlock(16, 16, 16, 0, 16);
    byte[] image = new byte[(int) p.extMemBytes()];
    image[(int) KeyColumnsTest.ROWS + 1] = 1;
    Program.Builder pb = Program.builder();
    CommandStream b = new CommandStream(CommandStream.program(pb), KeyColumnsTest.pool(image),
        p.dsp().programDepth(), false);
    b.load(KeyColumnsTest.ROWS, 16, 0, 16, 16, 16);
    b.dspIn(0, 16, 16, 16, 0, Command.FMT_INT8, 0);
    b.dspRun(prog);
    b.dspOut(4096, 16, 16, 16, 16, Command.FMT_INT8);
    b.store(KeyColumnsTest.KT_OUT, 16, 4096, 16, 16, 16);
    b.halt();
    byte[] program = pb.build().bytes();
    System.arraycopy(program, 0, image, 0, program.length);
    IsaSimulator.Result result = IsaSimulator.run(p, image, 0);
    assertEquals(ErrorCause.NONE, result.error());
    return result.memory()[(int) KeyColumnsTest.KT_OUT + 16];
  }
}
