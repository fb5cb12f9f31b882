package org.llmnpu.isa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@code gemm wStream=1} (and {@code wInt4=1}) in the golden simulator: results equal the scratchpad-W GEMM of the
 * same weights, W's bytes count as a load's (no scratchpad traffic), the engine's passes wait for their W rows
 * (hand-computed cycles), a GEMV is bound by its beats, and the checks (shape, ranges, unsupported machines).
 */
class StreamedGemmCommandTest {
  private static final MachineParams P = IsaSimulatorTest.P;
  private static final long X_EXT = 0x10000;
  private static final long W_EXT = 0x20000;
  private static final long Y_EXT = 0x40000;

  private record Shape(int m, int k, int n) {
    long xStride(int line) {
      return (k + line - 1) / line * line;
    }

    long yStride(int line) {
      return (4L * n + line - 1) / line * line;
    }
  }

  private static byte[] image(long seed, Program prog) {
    byte[] mem = new byte[(int) P.extMemBytes()];
    new Random(seed).nextBytes(mem);
    System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
    return mem;
  }

  /** X loaded, W loaded (INT8 load or INT4 load4) into the scratchpad at 0x400, the GEMM, Y stored. */
  private static Program scratchpadProgram(Shape s, boolean int4, long wStride) {
    int line = P.lineBytes();
    long spadW = 0x200;
    long spadWStride = (s.n() + line - 1) / line * line;
    Program.Builder b = Program.builder().load(X_EXT, s.xStride(line), 0, s.xStride(line), s.k(), s.m());
    b = int4 ? b.load4(W_EXT, wStride, spadW, spadWStride, (s.n() + 1) / 2, s.k())
        : b.load(W_EXT, wStride, spadW, spadWStride, s.n(), s.k());
    return b.gemm(s.m(), s.k(), s.n(), 0, s.xStride(line), spadW, spadWStride, 0x900, s.yStride(line))
        .store(Y_EXT, s.yStride(line), 0x900, s.yStride(line), 4L * s.n(), s.m()).halt().build();
  }

  private static Program streamedProgram(Shape s, boolean int4, long wStride) {
    int line = P.lineBytes();
    return Program.builder().load(X_EXT, s.xStride(line), 0, s.xStride(line), s.k(), s.m())
        .gemmStreamed(s.m(), s.k(), s.n(), 0, s.xStride(line), W_EXT, wStride, 0x900, s.yStride(line), int4)
        .store(Y_EXT, s.yStride(line), 0x900, s.yStride(line), 4L * s.n(), s.m()).halt().build();
  }

  private static byte[] y(IsaSimulator.Result r, Shape s) {
    int bytes = (int) ((s.m() - 1) * s.yStride(P.lineBytes()) + 4L * s.n());
    return Arrays.copyOfRange(r.memory(), (int) Y_EXT, (int) Y_EXT + bytes);
  }

  @Test
  void streamedWeightsGiveTheScratchpadGemmsResultsWithoutItsScratchpadTraffic() {
    Random r = new Random(31);
    int line = P.lineBytes();
    for (boolean int4 : new boolean[] {false, true}) {
      // the scratchpad (4 KiB) holds X at 0, W at 0x200 and Y at 0x900 of these shapes
      for (Shape s : new Shape[] {new Shape(1, 1, 1), new Shape(9, 43, 37), new Shape(3, 60, 24),
          new Shape(9, 7, 5), new Shape(1 + r.nextInt(9), 1 + r.nextInt(43), 1 + r.nextInt(37))}) {
        long rowBytes = int4 ? (s.n() + 1) / 2 : s.n();
        long wStride = (rowBytes + line - 1) / line * line + line * r.nextInt(2);
        long seed = r.nextLong();
        IsaSimulator.Result spad = IsaSimulator.run(P, image(seed, scratchpadProgram(s, int4, wStride)), 0);
        IsaSimulator.Result stream = IsaSimulator.run(P, image(seed, streamedProgram(s, int4, wStride)), 0);
        String what = s + (int4 ? " INT4" : " INT8");
        assertEquals(ErrorCause.NONE, spad.error(), what);
        assertEquals(ErrorCause.NONE, stream.error(), what);
        assertArrayEquals(y(spad, s), y(stream, s), what);
        long wLines = s.k() * ((s.n() + line - 1) / line);
        long wBeats = s.k() * ((rowBytes + line - 1) / line);
        long commandBeats = P.beatsPerCommand();
        assertEquals(spad.counter(Counter.EXT_READ_BEATS) - commandBeats, stream.counter(Counter.EXT_READ_BEATS), what);
        assertEquals(spad.counter(Counter.DMA_LOAD_BYTES), stream.counter(Counter.DMA_LOAD_BYTES), what);
        assertEquals(s.m() * (long) s.k() + s.k() * rowBytes, stream.counter(Counter.DMA_LOAD_BYTES), what);
        assertEquals(spad.counter(Counter.SPAD_READS) - wLines, stream.counter(Counter.SPAD_READS), what);
        long wWrites = int4 ? s.k() * ((2 * rowBytes + line - 1) / line) : wBeats;
        assertEquals(spad.counter(Counter.SPAD_WRITES) - wWrites, stream.counter(Counter.SPAD_WRITES), what);
        assertEquals(spad.counter(Counter.MACS), stream.counter(Counter.MACS), what);
        // INT4 over more than one N tile runs in N-tile pairs, one K tile a group: a write-back per K tile but the last
        long kTiles = (s.k() + P.rows() - 1) / P.rows();
        long writebacks = EngineRecurrence.pairOrder(P, int4, s.n()) ? (kTiles - 1) * s.m() * s.n()
            : spad.counter(Counter.PSUM_WRITEBACKS);
        assertEquals(writebacks, stream.counter(Counter.PSUM_WRITEBACKS), what);
      }
    }
  }

  @Test
  void int4NibblesAreSignedLowFirst() {
    // W row 0 = entries 7, -8, -1, 1 (bytes 0x87, 0x1F); X = 1, so Y = W row 0
    Shape s = new Shape(1, 1, 4);
    byte[] mem = image(1, streamedProgram(s, true, P.lineBytes()));
    mem[(int) X_EXT] = 1;
    mem[(int) W_EXT] = (byte) 0x87;
    mem[(int) W_EXT + 1] = (byte) 0x1F;
    IsaSimulator.Result r = IsaSimulator.run(P, mem, 0);
    int[] expected = {7, -8, -1, 1};
    for (int j = 0; j < 4; j++) {
      int a = (int) Y_EXT + 4 * j;
      byte[] m = r.memory();
      assertEquals(expected[j], (m[a] & 0xFF) | (m[a + 1] & 0xFF) << 8 | (m[a + 2] & 0xFF) << 16 | m[a + 3] << 24);
    }
  }

  /**
   * One pass (M = 2, K = N = rows = 4): the engine starts in the X copy's first cycle e, beside which the W beats go;
   * the loader waits for the last W row, written at {@code e + (K−1)·I + lat} (INT4 too: on this dense array an INT4
   * beat's two W buffer rows are written in the cycle it arrives), and for the K tile's X (its last line in cycle
   * {@code e + M − 1}), so {@code R_0 = max((K−1)·I + lat, M − 1)} and {@code engine = R_0 + M + rows + cols}.
   */
  @Test
  void aPassStartsTheCycleAfterItsLastWRowIsWritten() {
    Shape s = new Shape(2, 4, 4);
    for (int[] timing : new int[][] {{3, 4}, {5, 2}, {1, 1}}) {
      MachineParams q = P.withMemory(timing[0], timing[1]);
      int interval = q.beatInterval();
      for (boolean int4 : new boolean[] {false, true}) {
        IsaSimulator.Result r = IsaSimulator.run(q, image(2, streamedProgram(s, int4, 4)), 0);
        long ready = Math.max(3L * interval + timing[0], s.m() - 1);
        assertEquals(ready + s.m() + 8 + 1, r.counter(Counter.ARRAY_CYCLES), Arrays.toString(timing) + int4);
      }
      IsaSimulator.Result plain = IsaSimulator.run(q, image(2, scratchpadProgram(s, false, 4)), 0);
      assertEquals(s.m() + 8 + 1, plain.counter(Counter.ARRAY_CYCLES));
    }
  }

  @Test
  void aStreamedGemvIsBoundByItsBeatsAndInt4HalvesThem() {
    // 1×128×16 on a 4×4 array: 512 W beats of 4 bytes; the scratchpad path loads them and copies them again
    Shape s = new Shape(1, 128, 16);
    MachineParams slow = P.withMemory(20, 1);
    long beats = 128L * 4;
    IsaSimulator.Result viaSpad = IsaSimulator.run(slow, image(3, scratchpadProgram(s, false, 16)), 0);
    IsaSimulator.Result streamed = IsaSimulator.run(slow, image(3, streamedProgram(s, false, 16)), 0);
    IsaSimulator.Result int4 = IsaSimulator.run(slow, image(3, streamedProgram(s, true, 8)), 0);
    long interval = slow.beatInterval();
    // the GEMM: X copy (32 lines), the beats, the latency, the last pass and the drain (16 lines)
    assertTrue(streamed.counter(Counter.GEMM_CYCLES) < beats * interval + 100, "streamed " + streamed.counter(Counter.GEMM_CYCLES));
    assertTrue(viaSpad.counter(Counter.CYCLES) > streamed.counter(Counter.CYCLES) + beats,
        "scratchpad " + viaSpad.counter(Counter.CYCLES) + " streamed " + streamed.counter(Counter.CYCLES));
    double ratio = (double) int4.counter(Counter.GEMM_CYCLES) / streamed.counter(Counter.GEMM_CYCLES);
    assertTrue(ratio > 0.45 && ratio < 0.6, "INT4/INT8 cycles " + ratio);
  }

  @Test
  void checks() {
    Command.Gemm ok = new Command.Gemm(2, 8, 8, 0, 8, W_EXT, 8, 0x100, 32, Command.DENSE, 0, 1, 0, 0);
    CommandChecks checks = new CommandChecks(P);
    assertEquals(ErrorCause.NONE, checks.check(ok, false));
    // W is in the memory, not the scratchpad: any line-aligned address inside the memory
    assertEquals(ErrorCause.NONE, checks.check(with(ok, P.extMemBytes() - 7L * 8 - 8, 8), false));
    assertEquals(ErrorCause.EXT_ADDRESS, checks.check(with(ok, P.extMemBytes() - 7L * 8 - 4, 8), false));
    assertEquals(ErrorCause.EXT_ADDRESS, checks.check(with(ok, W_EXT + 2, 8), false));
    assertEquals(ErrorCause.EXT_ADDRESS, checks.check(with(ok, W_EXT, 6), false));
    // INT4 rows are ceil(N/2) bytes: the last row may end 4 bytes before the INT8 row would
    Command.Gemm int4 = new Command.Gemm(2, 8, 8, 0, 8, P.extMemBytes() - 7L * 8 - 4, 8, 0x100, 32, Command.DENSE, 0,
        1, 1, 0);
    assertEquals(ErrorCause.NONE, checks.check(int4, false));
    assertEquals(ErrorCause.BAD_SHAPE, checks.check(new Command.Gemm(2, 8, 8, 0, 8, 0x200, 8, 0x100, 32,
        Command.DENSE, 0, 0, 1, 0), false));
    assertEquals(ErrorCause.SPAD_ADDRESS, checks.check(new Command.Gemm(2, 8, 8, 0, 8, W_EXT, 8, P.spadBytes() - 32,
        32, Command.DENSE, 0, 1, 0, 0), false));
    // machines and modes without streamed weights
    assertEquals(ErrorCause.UNSUPPORTED, new CommandChecks(P, EngineTiming.pim(2)).check(ok, false));
    assertEquals(ErrorCause.UNSUPPORTED, new CommandChecks(P.withWeightRowsPerCycle(2)).check(ok, false));
    MachineParams sparse = PpmAndSparseCommandTest.machine(false, Command.S2_4);
    assertEquals(ErrorCause.NONE, new CommandChecks(sparse).check(ok, false));
    Command.Gemm nm = new Command.Gemm(2, 8, 8, 0, 8, W_EXT, 8, 0x100, 32, Command.S2_4, 0, 1, 0, 0);
    assertEquals(ErrorCause.NONE, new CommandChecks(sparse).check(nm, false));
    assertEquals(ErrorCause.UNSUPPORTED, checks.check(nm, false));
    // N:M values are INT8; S = 4 value rows and one packed metadata row: the range ends 5 rows on
    assertEquals(ErrorCause.UNSUPPORTED, new CommandChecks(sparse).check(new Command.Gemm(2, 8, 8, 0, 8, W_EXT, 8,
        0x100, 32, Command.S2_4, 0, 1, 1, 0), false));
    assertEquals(ErrorCause.NONE, new CommandChecks(sparse).check(with(nm, P.extMemBytes() - 4L * 8 - 8, 8), false));
    assertEquals(ErrorCause.EXT_ADDRESS, new CommandChecks(sparse).check(with(nm, P.extMemBytes() - 4L * 8 - 4, 8),
        false));
    assertEquals(ErrorCause.UNSUPPORTED, checks.check(new Command.Gemm(2, 8, 8, 0, 8, W_EXT, 8, 0x100, 32,
        Command.DENSE, 0, 1, 0, 1), false));
  }

  /** N:M streamed with packed metadata equals the scratchpad N:M GEMM of the unpacked layout (2:4 and 4:8). */
  @Test
  void packedMetadataStreamsGiveTheScratchpadNmResults() {
    Random r = new Random(24);
    int line = P.lineBytes();
    for (int mode : new int[] {Command.S2_4, Command.S4_8}) {
      MachineParams q = PpmAndSparseCommandTest.machine(false, mode);
      int kept = mode == Command.S2_4 ? 2 : 4;
      int group = 2 * kept;
      for (Shape s : new Shape[] {new Shape(1, 1, 1), new Shape(5, 43, 13), new Shape(9, 30, 7), new Shape(2, 8, 4)}) {
        byte[][] w = new byte[s.k()][s.n()];
        for (int g = 0; g < s.k(); g += group) {
          for (int col = 0; col < s.n(); col++) {
            for (int e = 0; e < kept; e++) {
              int kk = g + r.nextInt(group);
              if (kk < s.k()) {
                w[kk][col] = (byte) (r.nextInt(255) - 127);
              }
            }
          }
        }
        byte[][] unpacked = SparseWeights.compress(w, kept, group);
        byte[][] packed = StreamedWeights.compressPacked(w, kept, group);
        long wStride = (s.n() + line - 1) / line * line;
        long spadW = 0x200;
        Program viaSpad = Program.builder().load(X_EXT, s.xStride(line), 0, s.xStride(line), s.k(), s.m())
            .load(W_EXT + 0x8000, wStride, spadW, wStride, s.n(), unpacked.length)
            .gemm(s.m(), s.k(), s.n(), 0, s.xStride(line), spadW, wStride, 0x900, s.yStride(line), mode)
            .store(Y_EXT, s.yStride(line), 0x900, s.yStride(line), 4L * s.n(), s.m()).halt().build();
        Program streamed = Program.builder().load(X_EXT, s.xStride(line), 0, s.xStride(line), s.k(), s.m())
            .add(new Command.Gemm(s.m(), s.k(), s.n(), 0, s.xStride(line), W_EXT, wStride, 0x900, s.yStride(line),
                mode, 0, 1, 0, 0))
            .store(Y_EXT, s.yStride(line), 0x900, s.yStride(line), 4L * s.n(), s.m()).halt().build();
        byte[][] results = new byte[2][];
        IsaSimulator.Result last = null;
        for (int i = 0; i < 2; i++) {
          byte[] mem = image(7, i == 0 ? viaSpad : streamed);
          for (int row = 0; row < packed.length; row++) {
            System.arraycopy(packed[row], 0, mem, (int) (W_EXT + row * wStride), s.n());
          }
          for (int row = 0; row < unpacked.length; row++) {
            System.arraycopy(unpacked[row], 0, mem, (int) (W_EXT + 0x8000 + row * wStride), s.n());
          }
          last = IsaSimulator.run(q, mem, 0);
          assertEquals(ErrorCause.NONE, last.error(), s + " mode " + mode);
          results[i] = y(last, s);
        }
        assertArrayEquals(results[0], results[1], s + " mode " + mode);
        long beats = (long) packed.length * ((s.n() + line - 1) / line);
        long commandBeats = 4L * q.beatsPerCommand();
        long xBeats = s.m() * (long) ((s.k() + line - 1) / line);
        assertEquals(commandBeats + xBeats + beats, last.counter(Counter.EXT_READ_BEATS), s + " mode " + mode);
        assertEquals(s.m() * (long) s.n() * unpacked.length / 2, last.counter(Counter.MACS));
      }
    }
  }

  /** A 2:4 GEMV streams 0.625× the dense bytes, and its cycles follow. */
  @Test
  void aSparseGemvStreamsFiveEighthsOfTheBytes() {
    MachineParams q = PpmAndSparseCommandTest.machine(false, Command.S2_4).withMemory(20, 1);
    Shape s = new Shape(1, 128, 16);
    IsaSimulator.Result dense = IsaSimulator.run(q, image(3, streamedProgram(s, false, 16)), 0);
    Program sparse = Program.builder().load(X_EXT, 128, 0, 128, 128, 1)
        .add(new Command.Gemm(1, 128, 16, 0, 128, W_EXT, 16, 0x900, 64, Command.S2_4, 0, 1, 0, 0))
        .store(Y_EXT, 64, 0x900, 64, 64, 1).halt().build();
    IsaSimulator.Result nm = IsaSimulator.run(q, image(3, sparse), 0);
    assertEquals(ErrorCause.NONE, nm.error());
    // S = 64 value rows + 16 metadata rows of 4 beats, against 128 rows
    assertEquals(dense.counter(Counter.EXT_READ_BEATS) - 4 * (128 - 80), nm.counter(Counter.EXT_READ_BEATS));
    double ratio = (double) nm.counter(Counter.GEMM_CYCLES) / dense.counter(Counter.GEMM_CYCLES);
    assertTrue(ratio > 0.6 && ratio < 0.7, "2:4 / dense GEMV cycles " + ratio);
  }

  private static Command.Gemm with(Command.Gemm g, long w, long wStride) {
    return new Command.Gemm(g.m(), g.k(), g.n(), g.x(), g.xStride(), w, wStride, g.y(), g.yStride(), g.sparsity(),
        g.accumulate(), g.wStream(), g.wInt4(), g.ppm());
  }

  @Test
  void textFormRoundTrips() {
    String text = "gemm m=1 k=8 n=4 x=0 xStride=8 w=0x20000 wStride=4 y=128 yStride=16 wStream=1 wInt4=1\nhalt\n";
    Program p = Assembler.assemble(text, "t.npu").program();
    Command.Gemm g = (Command.Gemm) CommandCodec.decode(p.words(0)).orElseThrow();
    assertTrue(g.streamsWeights() && g.int4Weights());
    assertEquals(2, StreamedWeights.rowBytes(g));
  }
}
