package org.llmnpu.isa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Group-scaled INT4 weights on the stream ({@code gemm wStream=1 wInt4=2}, {@link StreamedWeights}) in the golden
 * simulator: the widening's range, the GEMM equal to the streamed INT8 GEMM of the widened weights (written out
 * here from the layout's definition), W's bytes counted as read, the encoding (word 2 bit 22) and its checks.
 */
class GroupScaledStreamTest {
  private static final MachineParams P = IsaSimulatorTest.P;
  private static final long X_EXT = 0x10000;
  private static final long W_EXT = 0x20000;
  private static final long W8_EXT = 0x30000;
  private static final long Y_EXT = 0x40000;

  @Test
  void widenedEntriesAreTheRoundedProductOverSixteenAndFitInt8() {
    assertEquals(-127, StreamedWeights.widen(-8, 255));
    assertEquals(112, StreamedWeights.widen(7, 255));
    assertEquals(7, StreamedWeights.widen(7, 16));
    assertEquals(1, StreamedWeights.widen(1, 8), "half rounds up");
    assertEquals(0, StreamedWeights.widen(-1, 8), "half rounds up for negatives too");
    for (int q = -8; q <= 7; q++) {
      for (int u = 0; u <= 255; u++) {
        int v = StreamedWeights.widen(q, u);
        assertEquals(Math.floor(q * u / 16.0 + 0.5), v, q + "·" + u);
        assertTrue(v >= -128 && v <= 127);
      }
    }
  }

  @Test
  void groupScaledGemmEqualsTheInt8GemmOfTheWidenedWeights() {
    int line = P.lineBytes();
    Random r = new Random(32);
    int[][] shapes = {{1, 100, 37}, {3, 32, 16}, {5, 33, 8}, {2, 64, 1}, {1, 1, 2}};
    for (int[] s : shapes) {
      int m = s[0];
      int k = s[1];
      int n = s[2];
      long xStride = up(k, line);
      long yStride = up(4L * n, line);
      long wStride = up((n + 1) / 2, line);
      long w8Stride = up(n, line);
      byte[] mem = new byte[(int) P.extMemBytes()];
      r.nextBytes(mem);
      for (int i = 0; i < k; i++) {
        int group = i / 32;
        long row = W_EXT + (i + 2L * (group + 1)) * wStride;
        long even = W_EXT + (34L * group) * wStride;
        for (int j = 0; j < n; j++) {
          int b = mem[(int) (row + j / 2)];
          int q = j % 2 == 0 ? (byte) (b << 4) >> 4 : (byte) b >> 4;
          int u = mem[(int) (even + (j % 2) * wStride + j / 2)] & 0xFF;
          mem[(int) (W8_EXT + i * w8Stride + j)] = (byte) Math.floor(q * u / 16.0 + 0.5);
        }
      }
      Command.Gemm scaled = new Command.Gemm(m, k, n, 0, xStride, W_EXT, wStride, 0x900, yStride, 0, 0, 1, 2, 0);
      Command.Gemm int8 = new Command.Gemm(m, k, n, 0, xStride, W8_EXT, w8Stride, 0x900, yStride, 0, 0, 1, 0, 0);
      IsaSimulator.Result a = run(mem, scaled, m, k, n, xStride, yStride);
      IsaSimulator.Result b = run(mem, int8, m, k, n, xStride, yStride);
      assertEquals(ErrorCause.NONE, a.error(), Arrays.toString(s));
      int bytes = (int) ((m - 1) * yStride + 4L * n);
      assertArrayEquals(Arrays.copyOfRange(b.memory(), (int) Y_EXT, (int) Y_EXT + bytes),
          Arrays.copyOfRange(a.memory(), (int) Y_EXT, (int) Y_EXT + bytes), Arrays.toString(s));
      long rows = k + 2L * ((k + 31) / 32);
      assertEquals((long) m * k + rows * ((n + 1) / 2), a.counter(Counter.DMA_LOAD_BYTES),
          "X and the streamed rows, multipliers included");
    }
  }

  @Test
  void theFlagIsWordTwoBit22AndBothInt4BitsAreABadShape() {
    Command.Gemm g = new Command.Gemm(1, 32, 16, 0, 32, W_EXT, 16, 0x900, 64, 0, 0, 1, 2, 0);
    int[] w = CommandCodec.encode(g);
    assertEquals(1 << 22 | 1 << 19, w[2] & 0xFFFF0000);
    assertEquals(g, CommandCodec.decode(w).orElseThrow());
    assertTrue(Disassembler.line(w).contains("wStream=1 wInt4=2"), Disassembler.line(w));
    w[2] |= 1 << 20;
    Command.Gemm both = (Command.Gemm) CommandCodec.decode(w).orElseThrow();
    byte[] mem = new byte[(int) P.extMemBytes()];
    assertEquals(ErrorCause.BAD_SHAPE, run(mem, both, 1, 32, 16, 32, 64).error());
    Command.Gemm unstreamed = new Command.Gemm(1, 32, 16, 0, 32, 0x400, 16, 0x900, 64, 0, 0, 0, 2, 0);
    assertEquals(ErrorCause.BAD_SHAPE, run(mem, unstreamed, 1, 32, 16, 32, 64).error());
  }

  private static IsaSimulator.Result run(byte[] mem, Command.Gemm g, int m, int k, int n, long xStride, long yStride) {
    Program prog = Program.builder().load(X_EXT, xStride, 0, xStride, k, m).add(g)
        .store(Y_EXT, yStride, 0x900, yStride, 4L * n, m).halt().build();
    byte[] image = mem.clone();
    System.arraycopy(prog.bytes(), 0, image, 0, prog.bytes().length);
    return IsaSimulator.run(P, image, 0);
  }

  private static long up(long v, long to) {
    return (v + to - 1) / to * to;
  }
}
