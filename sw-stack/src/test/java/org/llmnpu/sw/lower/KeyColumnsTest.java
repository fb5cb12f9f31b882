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

/** {@link KeyColumns} on the golden ISA simulator: a block's K rows land as Kᵀ columns, nothing else changes. */
class KeyColumnsTest {
  static final long KT_IN = 2 << 20;
  static final long KT_OUT = 3 << 20;
  static final long ROWS = 4 << 20;
  private static final long POOL = 5 << 20;

  /**
   * A block's K rows (INT8 codes, extremes included) packed in pairs through the staging region into a Kᵀ that holds
   * random bytes elsewhere; asserts every byte of Kᵀ.
   */
  private static void check(int kvDim, int n, int first, int ctx, int dspElements, long seed) {
    MachineParams p = NpuTargets.defaultNpu();
    int line = p.lineBytes();
    Random r = new Random(seed);
    byte[][] codes = codes(r, n, kvDim);
    int ktStride = LoweredModel.roundUp(ctx, line);
    byte[] before = new byte[kvDim * ktStride];
    r.nextBytes(before);
    int rowStride = LoweredModel.roundUp(kvDim, line);
    long spadRows = 0;
    long spadKt = spadRows + (long) n * rowStride;
    long stage = spadKt + before.length;
    byte[] image = new byte[(int) p.extMemBytes()];
    Program.Builder pb = Program.builder();
    CommandStream b = new CommandStream(CommandStream.program(pb), pool(image), p.dsp().programDepth(), false);
    DspRoutines routines = new DspRoutines(p.dsp(), 1e-5f);
    KeyColumns kc = new KeyColumns(p, kvDim, stage, n, dspElements);
    int vecRows = LoweredModel.roundUp(kvDim, p.dsp().lanes()) / p.dsp().lanes();
    b.load(ROWS, rowStride, spadRows, rowStride, rowStride, n);
    b.load(KT_IN, ktStride, spadKt, ktStride, ktStride, kvDim);
    // up to three pairs a run where kvDim fills whole DSP rows, else one
    int chunk = kvDim % p.dsp().lanes() == 0 ? 3 : 1;
    for (int j0 = 0; j0 < n / 2; j0 += chunk) {
      int k = Math.min(chunk, n / 2 - j0);
      kc.pairs(b, routines, spadRows + 2L * j0 * rowStride, rowStride, j0, k, n, 0, k * vecRows);
    }
    if (n % 2 == 1) {
      kc.pairs(b, routines, spadRows + (n - 1L) * rowStride, rowStride, n / 2, 1, n, 0, -1);
    }
    kc.write(b, routines, n, 2 * vecRows, spadKt, ktStride, first);
    byte[] kt = runKt(p, image, b, pb, codes, rowStride, before, ktStride);
    for (int d = 0; d < kvDim; d++) {
      for (int j = 0; j < ktStride; j++) {
        byte want = j >= first && j < first + n ? codes[j - first][d] : before[d * ktStride + j];
        assertEquals(want, kt[d * ktStride + j], "Kᵀ row " + d + " slot " + j);
      }
    }
  }

  /**
   * Ends {@code b}'s program ({@code pb}) with the store of Kᵀ (in the scratchpad right after the K rows, kvDim rows
   * of {@code ktStride}) to {@link #KT_OUT} and HALT, places it at address 0 of
   * {@code image} with the K rows {@code codes} at {@link #ROWS} ({@code rowStride} apart) and Kᵀ's old bytes
   * {@code before} at {@link #KT_IN}, runs it on the golden simulator of {@code p} and gives the Kᵀ it stored.
   */
  static byte[] runKt(MachineParams p, byte[] image, CommandStream b, Program.Builder pb, byte[][] codes,
                      int rowStride, byte[] before, int ktStride) {
    int kvDim = before.length / ktStride;
    b.store(KT_OUT, ktStride, codes.length * (long) rowStride, ktStride, ktStride, kvDim);
    b.halt();
    byte[] program = pb.build().bytes();
    System.arraycopy(program, 0, image, 0, program.length);
    for (int t = 0; t < codes.length; t++) {
      System.arraycopy(codes[t], 0, image, (int) (ROWS + (long) t * rowStride), kvDim);
    }
    System.arraycopy(before, 0, image, (int) KT_IN, before.length);
    IsaSimulator.Result run = IsaSimulator.run(p, image, 0);
    assertEquals(ErrorCause.NONE, run.error());
    return java.util.Arrays.copyOfRange(run.memory(), (int) KT_OUT, (int) KT_OUT + before.length);
  }

  /** n K rows of kvDim random INT8 codes, a quarter of them the extremes 127, −128, −127, −1, 0. */
  static byte[][] codes(Random r, int n, int kvDim) {
    byte[][] codes = new byte[n][kvDim];
    byte[] extremes = {127, -128, -127, -1, 0};
    for (byte[] row : codes) {
      for (int d = 0; d < kvDim; d++) {
        row[d] = r.nextInt(4) == 0 ? extremes[r.nextInt(extremes.length)] : (byte) (r.nextInt(256) - 128);
      }
    }
    return codes;
  }

  /** Places each DSP program once in {@code image}, 4 KiB apart from {@link #POOL}, and gives its address. */
  static java.util.function.ToLongFunction<org.llmnpu.isa.dsp.DspProgram> pool(byte[] image) {
    java.util.Map<org.llmnpu.isa.dsp.DspProgram, Long> placed = new java.util.HashMap<>();
    return prog -> placed.computeIfAbsent(prog, q -> {
      long at = POOL + 0x1000L * placed.size();
      long[] words = q.words();
      for (int i = 0; i < words.length; i++) {
        for (int k = 0; k < 8; k++) {
          image[(int) (at + 8L * i + k)] = (byte) (words[i] >>> (8 * k));
        }
      }
      return at;
    });
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
  void oddBlocksWriteTheirLastSlotAndNotTheNext() {
    check(32, 15, 16, 64, 8192, 7);
    check(48, 9, 32, 50, 8192, 8);
    check(48, 11, 16, 40, 100, 9);
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
    DspRoutines routines = new DspRoutines(p.dsp(), 1e-5f);
    String m = assertThrows(IllegalArgumentException.class, () -> kc.write(b, routines, 4, 0, 4096, 64, 5))
        .getMessage();
    assertTrue(m.contains("first slot 5"), m);
    String s = assertThrows(IllegalArgumentException.class, () -> new KeyColumns(p, 32, 8, 16, 8192)).getMessage();
    assertTrue(s.contains("not line-aligned"), s);
  }
}
