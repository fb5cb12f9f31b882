package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * Group-scaled INT4 weights on the stream ({@code gemm wStream=1 wInt4=2}: per group of 32 W rows two rows of
 * per-column multipliers, entries widened to {@code (q·u + 8) >> 4} on the load path) on the generated NPU: ragged
 * shapes (K with a short last group, K past the array's rows, N ragged and over several N tiles, M past mTile), random
 * multipliers and nibbles (extremes included: the image is random bytes), a K split whose second half accumulates, on
 * the dense 8×8 NPU under two memory timings and on the 2:4 array (a dense GEMM there): bit-exact with the golden
 * ISA simulator, every counter equal, cycles equal to the cycle model's {@code streamedGemm}; and the checks (no
 * stream, both INT4 bits, N:M) halt both with the same error.
 */
class GroupScaledStreamCosimTest {

  @ParameterizedTest(name = "{0}, latency {1}, {2} B/cycle")
  @CsvSource({"dense, 7, 4", "dense, 2, 1", "2:4, 3, 4"})
  void groupScaledStreamsAreBitExactWithExactCountersAndCycles(String array, int latency, int bytesPerCycle) {
    NpuConfig c = (array.equals("dense") ? new NpuConfig(8, 8, 2, 1, 8, 32, 2, 32, 256, 64, 7, 4, 256, 4, 128, 256,
        1L << 16, "systolic", 1, false, false, "dense") : SparseGemmCosimTest.config(array))
        .withMemory(latency, bytesPerCycle);
    MachineParams p = c.machine();
    Random r = new Random(latency * 7 + bytesPerCycle);
    int[][] shapes = {{1, 172, 37}, {1, 64, 16}, {13, 100, 37}, {20, 7, 9}, {1, 1, 1}, {3, 33, 5}, {32, 96, 17}};
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      for (int[] s : shapes) {
        int m = s[0];
        int k = s[1];
        int n = s[2];
        long xStride = GemmCosimFixture.lines(p, k);
        long yStride = GemmCosimFixture.lines(p, 4L * n);
        long wStride = GemmCosimFixture.lines(p, (n + 1) / 2) + p.lineBytes() * r.nextInt(2);
        long y = m * xStride;
        Program prog = Program.builder()
            .load(GemmCosimFixture.EXT_X, xStride, 0, xStride, k, m)
            .add(new Command.Gemm(m, k, n, 0, xStride, GemmCosimFixture.EXT_W, wStride, y, yStride, 0, 0, 1, 2, 0))
            .store(GemmCosimFixture.EXT_Y, yStride, y, yStride, 4L * n, m)
            .halt().build();
        byte[] image = new byte[(int) p.extMemBytes()];
        r.nextBytes(image);
        ProgramCosim.Outcome o = StreamedGemmCosimTest.assertAgrees(rtl, RandomPrograms.place(image, prog, 0), prog,
            array + " " + m + "x" + k + "x" + n);
        assertEquals(ErrorCause.NONE, o.golden().error());
        long rows = k + 2L * ((k + 31) / 32);
        assertEquals((long) m * k + rows * ((n + 1) / 2), o.rtl().counters().get(Counter.DMA_LOAD_BYTES),
            "X bytes and the streamed rows, multipliers included");
      }
      // K split at a group boundary into two group-scaled GEMMs, the second accumulating
      int m = 5, k = 130, n = 21, k1 = 96;
      long xStride = GemmCosimFixture.lines(p, k);
      long wStride = GemmCosimFixture.lines(p, (n + 1) / 2);
      long second = GemmCosimFixture.EXT_W + (k1 + 2L * (k1 / 32)) * wStride;
      long yStride = GemmCosimFixture.lines(p, 4L * n);
      long y = m * xStride;
      Program prog = Program.builder()
          .load(GemmCosimFixture.EXT_X, xStride, 0, xStride, k, m)
          .add(new Command.Gemm(m, k1, n, 0, xStride, GemmCosimFixture.EXT_W, wStride, y, yStride, 0, 0, 1, 2, 0))
          .add(new Command.Gemm(m, k - k1, n, k1, xStride, second, wStride, y, yStride, 0, 1, 1, 2, 0))
          .store(GemmCosimFixture.EXT_Y, yStride, y, yStride, 4L * n, m)
          .halt().build();
      byte[] image = new byte[(int) p.extMemBytes()];
      r.nextBytes(image);
      StreamedGemmCosimTest.assertAgrees(rtl, RandomPrograms.place(image, prog, 0), prog, "K split, accumulate");
    }
  }

  @Test
  void checksHaltTheNpuAsTheGolden() {
    NpuConfig c = SparseGemmCosimTest.config("2:4");
    MachineParams p = c.machine();
    Command.Gemm unstreamed = new Command.Gemm(2, 8, 8, 0, 8, 0x100, 8, 0x200, 32, 0, 0, 0, 2, 0);
    Command.Gemm bothBits = new Command.Gemm(2, 8, 8, 0, 8, 0x30000, 8, 0x200, 32, 0, 0, 1, 3, 0);
    Command.Gemm sparse = new Command.Gemm(2, 8, 8, 0, 8, 0x30000, 8, 0x200, 32, 1, 0, 1, 2, 0);
    // a W whose last row (K + 2·ceil(K/32) rows of ceil(N/2) bytes, the multiplier rows included) ends a line before
    // the memory's end, and the same W a line later (EXT_ADDRESS): K a multiple of 32 and not
    long ext = p.extMemBytes();
    int line = p.lineBytes();
    java.util.List<Object[]> all = new java.util.ArrayList<>(java.util.List.of(new Object[] {unstreamed,
        ErrorCause.BAD_SHAPE}, new Object[] {bothBits, ErrorCause.BAD_SHAPE}, new Object[] {sparse,
        ErrorCause.UNSUPPORTED}));
    for (int k : new int[] {40, 64}) {
      long rows = k + 2L * ((k + 31) / 32);
      long fits = ext - (rows - 1) * line - line;
      all.add(new Object[] {new Command.Gemm(2, k, 8, 0, 8, fits, line, 0x200, 32, 0, 0, 1, 2, 0), ErrorCause.NONE});
      all.add(new Object[] {new Command.Gemm(2, k, 8, 0, 8, fits + line, line, 0x200, 32, 0, 0, 1, 2, 0),
          ErrorCause.EXT_ADDRESS});
    }
    Object[][] cases = all.toArray(new Object[0][]);
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      for (Object[] t : cases) {
        Program prog = Program.builder().load(0x10000, 8, 0, 8, 8, 2).add((Command) t[0]).halt().build();
        byte[] image = new byte[(int) p.extMemBytes()];
        new Random(4).nextBytes(image);
        ProgramCosim.Outcome o = StreamedGemmCosimTest.assertAgrees(rtl, RandomPrograms.place(image, prog, 0), prog,
            t[1].toString());
        assertEquals(t[1], o.golden().error());
      }
    }
  }
}
