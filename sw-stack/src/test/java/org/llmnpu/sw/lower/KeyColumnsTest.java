package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;

/** {@link KeyColumns} on the golden ISA simulator: a block's K codes land as Kᵀ columns, nothing else changes. */
class KeyColumnsTest {
  private static final long CODES = 1 << 20;
  private static final long KT_IN = 2 << 20;
  private static final long KT_OUT = 3 << 20;
  private static final long ROWS = 4 << 20;
  private static final long POOL = 5 << 20;

  /**
   * Token codes (raw 16 bits, as TOINT leaves them: the code sign-extended, extremes included) through the staging
   * region into a Kᵀ that holds random bytes elsewhere; returns nothing, asserts every byte of Kᵀ.
   */
  private static void check(int kvDim, int n, int first, int ctx, int dspElements, long seed) {
    check(kvDim, n, first, ctx, dspElements, seed, 0);
  }

  /** As above; the block's first {@code restaged} tokens come from their INT8 K rows ({@link KeyColumns#restage}). */
  private static void check(int kvDim, int n, int first, int ctx, int dspElements, long seed, int restaged) {
    MachineParams p = NpuTargets.defaultNpu();
    int line = p.lineBytes();
    Random r = new Random(seed);
    byte[][] codes = new byte[n][kvDim];
    for (byte[] row : codes) {
      for (int d = 0; d < kvDim; d++) {
        row[d] = (byte) (r.nextInt(5) == 0 ? (r.nextBoolean() ? 127 : -127) : r.nextInt(255) - 127);
      }
    }
    int ktStride = LoweredModel.roundUp(ctx, line);
    byte[] before = new byte[kvDim * ktStride];
    r.nextBytes(before);
    int codeStride = LoweredModel.roundUp(2 * kvDim, line);
    long spadCodes = 0;
    long spadKt = spadCodes + (long) n * codeStride;
    long stage = spadKt + before.length;
    int rowStride = LoweredModel.roundUp(kvDim, line);
    long spadRows = stage + KeyColumns.stageBytes(p, kvDim, n);
    byte[] image = new byte[(int) p.extMemBytes()];
    java.util.Map<org.llmnpu.isa.dsp.DspProgram, Long> placed = new java.util.HashMap<>();
    java.util.function.ToLongFunction<org.llmnpu.isa.dsp.DspProgram> pool = prog -> placed.computeIfAbsent(prog,
        q -> {
          long at = POOL + 0x1000L * placed.size();
          long[] words = q.words();
          for (int i = 0; i < words.length; i++) {
            for (int k = 0; k < 8; k++) {
              image[(int) (at + 8L * i + k)] = (byte) (words[i] >>> (8 * k));
            }
          }
          return at;
        });
    Program.Builder pb = Program.builder();
    CommandStream b = new CommandStream(CommandStream.program(pb), pool, p.dsp().programDepth(), false);
    DspRoutines routines = new DspRoutines(p.dsp(), 1e-5f);
    KeyColumns kc = new KeyColumns(p, kvDim, stage, n, dspElements);
    int vecRows = LoweredModel.roundUp(kvDim, p.dsp().lanes()) / p.dsp().lanes();
    b.load(CODES, codeStride, spadCodes, codeStride, codeStride, n);
    b.load(ROWS, rowStride, spadRows, rowStride, rowStride, n);
    b.load(KT_IN, ktStride, spadKt, ktStride, ktStride, kvDim);
    for (int t = 0; t < n; t++) {
      if (t < restaged) {
        kc.restage(b, routines, spadRows + (long) t * rowStride, t, n, 0, vecRows, 2 * vecRows);
      } else {
        b.dspIn(spadCodes + (long) t * codeStride, codeStride, kvDim, 1, 0, org.llmnpu.isa.Command.FMT_FP16, 0);
        kc.scatter(b, t, n, 0);
      }
    }
    int dst = 2 * vecRows + 1;
    kc.write(b, n, dst, spadKt, ktStride, first);
    b.store(KT_OUT, ktStride, spadKt, ktStride, ktStride, kvDim);
    b.halt();
    byte[] program = pb.build().bytes();
    System.arraycopy(program, 0, image, 0, program.length);
    for (int t = 0; t < n; t++) {
      for (int d = 0; d < kvDim; d++) {
        int at = (int) (CODES + (long) t * codeStride + 2L * d);
        image[at] = codes[t][d];
        image[at + 1] = (byte) (codes[t][d] < 0 ? -1 : 0);
        image[(int) (ROWS + (long) t * rowStride + d)] = codes[t][d];
      }
    }
    System.arraycopy(before, 0, image, (int) KT_IN, before.length);
    IsaSimulator.Result run = IsaSimulator.run(p, image, 0);
    assertEquals(ErrorCause.NONE, run.error());
    for (int d = 0; d < kvDim; d++) {
      for (int j = 0; j < ktStride; j++) {
        byte want = j >= first && j < first + n ? codes[j - first][d] : before[d * ktStride + j];
        assertEquals(want, run.memory()[(int) (KT_OUT + (long) d * ktStride + j)], "Kᵀ row " + d + " slot " + j);
      }
    }
  }

  @Test
  void storiesShapedBlocksLandAsColumns() {
    check(32, 16, 0, 64, 8192, 1);
    check(32, 16, 32, 64, 8192, 2);
  }

  @Test
  void raggedBlocksAndAGqaKvDimOffTheLineLeaveTheOtherSlotsAlone() {
    check(48, 13, 16, 50, 8192, 3);
    check(24, 1, 48, 64, 8192, 4);
    check(40, 7, 0, 7, 8192, 5);
  }

  @Test
  void earlierTokensOfTheLineComeBackFromTheirKRows() {
    check(32, 16, 16, 64, 8192, 7, 5);
    check(48, 9, 32, 50, 8192, 8, 8);
  }

  @Test
  void aGatherLargerThanTheDspBufferGoesInChunks() {
    check(48, 16, 16, 40, 100, 6);
  }

  @Test
  void aBlockNotStartingOnALineIsRefused() {
    MachineParams p = NpuTargets.defaultNpu();
    Program.Builder pb = Program.builder();
    CommandStream b = new CommandStream(CommandStream.program(pb), prog -> 0L, p.dsp().programDepth(), false);
    KeyColumns kc = new KeyColumns(p, 32, 0, 16, 8192);
    String m = assertThrows(IllegalArgumentException.class, () -> kc.write(b, 4, 0, 4096, 64, 5)).getMessage();
    assertTrue(m.contains("first slot 5"), m);
    String s = assertThrows(IllegalArgumentException.class, () -> new KeyColumns(p, 32, 8, 16, 8192)).getMessage();
    assertTrue(s.contains("not line-aligned"), s);
  }
}
