package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;

/** {@link KeyScores} on the golden ISA simulator: every INT32 score is the query's dot product with the slot's K. */
class KeyScoresTest {
  private static final long KT = 1 << 20;
  private static final long QUERIES = 2 << 20;
  private static final long OUT = 3 << 20;

  private static byte code(Random r) {
    return (byte) (r.nextInt(6) == 0 ? (r.nextBoolean() ? 127 : -127) : r.nextInt(255) - 127);
  }

  private static void check(int heads, int kvHeads, int headDim, int n, int s, long seed) {
    check(heads, kvHeads, headDim, n, s, seed, headDim / 2 % NpuTargets.defaultNpu().dsp().lanes() != 0);
  }

  /** As above; {@code ownRows}: each query half at lane 0 of a row of its own, else every head's halves flat. */
  private static void check(int heads, int kvHeads, int headDim, int n, int s, long seed, boolean ownRows) {
    MachineParams p = NpuTargets.defaultNpu();
    int line = p.lineBytes();
    int lanes = p.dsp().lanes();
    int half = headDim / 2;
    int nq = heads * half;
    int nk = kvHeads * half;
    int kvDim = kvHeads * headDim;
    Random r = new Random(seed);
    int ktStride = LoweredModel.roundUp(s, line);
    byte[][] kt = new byte[kvDim][s];
    for (byte[] row : kt) {
      for (int j = 0; j < s; j++) {
        row[j] = code(r);
      }
    }
    byte[][][] q = new byte[n][heads][headDim];
    for (byte[][] token : q) {
      for (byte[] head : token) {
        for (int i = 0; i < headDim; i++) {
          head[i] = code(r);
        }
      }
    }
    // the queries as the DSP holds them (raw 16 bits of TOINT results): flat evens then odds, or each half at lane 0
    // of a row of its own
    int qElems = ownRows ? 2 * heads * lanes : 2 * nq;
    int qStride = LoweredModel.roundUp(2 * qElems, line);
    byte[] image = new byte[(int) p.extMemBytes()];
    for (int t = 0; t < n; t++) {
      for (int h = 0; h < heads; h++) {
        for (int i = 0; i < half; i++) {
          int even = ownRows ? h * lanes + i : h * half + i;
          int odd = ownRows ? (heads + h) * lanes + i : nq + h * half + i;
          put(image, QUERIES + (long) t * qStride + 2L * even, q[t][h][i]);
          put(image, QUERIES + (long) t * qStride + 2L * odd, q[t][h][half + i]);
        }
      }
    }
    for (int d = 0; d < kvDim; d++) {
      System.arraycopy(kt[d], 0, image, (int) (KT + (long) d * ktStride), s);
    }
    long spadKt = 0;
    long spadQ = spadKt + (long) kvDim * ktStride;
    long sX = spadQ + (long) n * qStride;
    long sY = sX + KeyScores.xBytes(p, heads, headDim, n);
    KeyScores ks = new KeyScores(p, heads, kvHeads, headDim, sX, sY, n, s);
    Program.Builder pb = Program.builder();
    CommandStream b = new CommandStream(CommandStream.program(pb), prog -> 0L, p.dsp().programDepth(), false);
    b.load(KT, ktStride, spadKt, ktStride, ktStride, kvDim);
    b.load(QUERIES, qStride, spadQ, qStride, qStride, n);
    for (int t = 0; t < n; t++) {
      b.dspIn(spadQ + (long) t * qStride, qStride, qElems, 1, 0, Command.FMT_FP16, 0);
      ks.queriesOut(b, t, 0, ownRows ? heads : nq / lanes, ownRows);
    }
    for (int h = 0; h < heads; h++) {
      ks.scores(b, h, n, s, spadKt, ktStride);
      b.store(OUT + (long) h * n * ks.yStride, ks.yStride, sY, ks.yStride, ks.yStride, n);
    }
    b.halt();
    byte[] program = pb.build().bytes();
    System.arraycopy(program, 0, image, 0, program.length);
    IsaSimulator.Result run = IsaSimulator.run(p, image, 0);
    assertEquals(ErrorCause.NONE, run.error());
    for (int h = 0; h < heads; h++) {
      int g = h / (heads / kvHeads);
      for (int t = 0; t < n; t++) {
        for (int j = 0; j < s; j++) {
          int want = 0;
          for (int i = 0; i < half; i++) {
            want += q[t][h][i] * kt[g * half + i][j] + q[t][h][half + i] * kt[nk + g * half + i][j];
          }
          long at = OUT + ((long) h * n + t) * ks.yStride + 4L * j;
          int got = (run.memory()[(int) at] & 0xFF) | (run.memory()[(int) at + 1] & 0xFF) << 8
              | (run.memory()[(int) at + 2] & 0xFF) << 16 | run.memory()[(int) at + 3] << 24;
          assertEquals(want, got, "head " + h + " token " + t + " slot " + j);
        }
      }
    }
  }

  private static void put(byte[] image, long at, byte code) {
    image[(int) at] = code;
    image[(int) at + 1] = (byte) (code < 0 ? -1 : 0);
  }

  @Test
  void storiesShapedGqaWithHalvesInRowsOfTheirOwn() {
    check(8, 4, 8, 5, 16, 1);
    check(4, 2, 8, 3, 13, 2);
  }

  /** The lowering's form ({@code TransposedKeys#emit}): halves of 4 codes read flat from 16-lane DSP rows. */
  @Test
  void storiesShapedGqaWithHalvesFlat() {
    check(8, 4, 8, 5, 16, 1, false);
    check(4, 2, 8, 3, 13, 2, false);
  }

  @Test
  void wholeRowHalvesAndSlotsPastMaxN() {
    check(2, 1, 32, 3, 150, 3);
  }

  @Test
  void tokensPastMaxM() {
    check(1, 1, 8, 70, 80, 4);
  }

  @Test
  void badShapesAreRefused() {
    MachineParams p = NpuTargets.defaultNpu();
    String m = assertThrows(IllegalArgumentException.class,
        () -> new KeyScores(p, 6, 4, 8, 0, 4096, 4, 16)).getMessage();
    assertTrue(m.contains("heads 6"), m);
    KeyScores ks = new KeyScores(p, 4, 2, 8, 0, 4096, 4, 16);
    Program.Builder pb = Program.builder();
    CommandStream b = new CommandStream(CommandStream.program(pb), prog -> 0L, p.dsp().programDepth(), false);
    String s = assertThrows(IllegalArgumentException.class, () -> ks.scores(b, 0, 4, 17, 0, 16)).getMessage();
    assertTrue(s.contains("17 slots"), s);
    // halves in rows of their own: a DSP row of 32 lanes does not fit an X row of 16 bytes (a half of 4 codes)
    KeyScores wide = new KeyScores(WideDspTest.wide("int8", 32, false), 4, 2, 8, 0, 4096, 4, 16);
    String h = assertThrows(IllegalArgumentException.class, () -> wide.queriesOut(b, 0, 0, 4, true)).getMessage();
    assertTrue(h.contains("32 lanes"), h);
  }
}
