package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.Disassembler;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * Streamed weights ({@code gemm wStream=1}, INT8 and {@code wInt4=1}) on the generated NPU: random programs whose
 * GEMMs take W from the scratchpad or stream it from the memory (in order and overlapped), ragged GEMVs and GEMMs
 * (K = 172, N = 37, several N tiles and K tiles, M past mTile), under several memory timings: bit-exact with the
 * golden ISA simulator, every counter equal (cycles to the cycle model's {@code streamedGemm}); and the checks
 * (an INT4 flag without the stream, W past the memory's end) halt both with the same error.
 */
class StreamedGemmCosimTest {

  @ParameterizedTest(name = "latency {0}, {1} B/cycle")
  @CsvSource({"3, 4", "1, 4", "9, 1", "5, 2"})
  void randomProgramsWithStreamedWeightsAreBitExactWithExactCountersAndCycles(int latency, int bytesPerCycle) {
    NpuConfig c = NpuConfig.small().withMemory(latency, bytesPerCycle);
    Random r = new Random(latency * 31 + bytesPerCycle);
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      for (int i = 0; i < 6; i++) {
        RandomPrograms.Case t = RandomPrograms.generate(c.machine(), r, 1 + r.nextInt(3), i % 2 == 1, true);
        assertAgrees(rtl, t.image(), t.program(), "program " + i);
      }
    }
  }

  /**
   * Lone streamed GEMMs of ragged shapes, INT8 and INT4, each followed by a store of its Y, on an 8×8 NPU with
   * K up to 256, IC accumulation over 2 K tiles and a beat every other cycle.
   */
  @Test
  void raggedStreamedGemmsAreBitExactWithExactCountersAndCycles() {
    NpuConfig c = new NpuConfig(8, 8, 2, 1, 8, 32, 2, 32, 256, 64, 7, 4, 256, 4, 128, 256, 1L << 16,
        "systolic", 1, false, false, "dense");
    Random r = new Random(172);
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      raggedShapes(rtl, r);
    }
  }

  private static void raggedShapes(NpuRtl rtl, Random r) {
    MachineParams p = rtl.config().machine();
    int[][] shapes = {{1, 172, 37}, {1, 256, 64}, {13, 172, 37}, {20, 7, 9}, {1, 1, 1}, {3, 33, 5}, {32, 100, 17}};
    for (int[] s : shapes) {
      for (boolean int4 : new boolean[] {false, true}) {
        int m = s[0];
        int k = s[1];
        int n = s[2];
        long xStride = GemmCosimFixture.lines(p, k);
        long yStride = GemmCosimFixture.lines(p, 4L * n);
        long wStride = GemmCosimFixture.lines(p, int4 ? (n + 1) / 2 : n);
        long y = m * xStride;
        Program prog = Program.builder()
            .load(GemmCosimFixture.EXT_X, xStride, 0, xStride, k, m)
            .gemmStreamed(m, k, n, 0, xStride, GemmCosimFixture.EXT_W, wStride, y, yStride, int4)
            .store(GemmCosimFixture.EXT_Y, yStride, y, yStride, 4L * n, m)
            .halt().build();
        byte[] image = new byte[(int) p.extMemBytes()];
        r.nextBytes(image);
        ProgramCosim.Outcome o = assertAgrees(rtl, RandomPrograms.place(image, prog, 0), prog,
            m + "x" + k + "x" + n + (int4 ? " INT4" : " INT8"));
        assertEquals(ErrorCause.NONE, o.golden().error());
        assertEquals((long) m * k * n, o.rtl().counters().get(Counter.MACS));
      }
    }
  }

  @Test
  void checksHaltTheNpuAsTheGolden() {
    NpuConfig c = NpuConfig.small();
    MachineParams p = c.machine();
    long end = p.extMemBytes();
    org.llmnpu.isa.Command.Gemm int4WithoutStream = new org.llmnpu.isa.Command.Gemm(2, 8, 8, 0, 8, 0x100, 8, 0x200,
        32, 0, 0, 0, 1, 0);
    org.llmnpu.isa.Command.Gemm pastTheEnd = new org.llmnpu.isa.Command.Gemm(2, 8, 8, 0, 8, end - 7 * 8 - 4, 8,
        0x200, 32, 0, 0, 1, 0, 0);
    org.llmnpu.isa.Command.Gemm misaligned = new org.llmnpu.isa.Command.Gemm(2, 8, 8, 0, 8, 0x30002, 8, 0x200, 32,
        0, 0, 1, 0, 0);
    org.llmnpu.isa.Command.Gemm sparse = new org.llmnpu.isa.Command.Gemm(2, 8, 8, 0, 8, 0x30000, 8, 0x200, 32,
        1, 0, 1, 0, 0);
    Object[][] cases = {{int4WithoutStream, ErrorCause.BAD_SHAPE}, {pastTheEnd, ErrorCause.EXT_ADDRESS},
        {misaligned, ErrorCause.EXT_ADDRESS}, {sparse, ErrorCause.UNSUPPORTED}};
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      for (Object[] t : cases) {
        Program prog = Program.builder().load(0x10000, 8, 0, 8, 8, 2).add((org.llmnpu.isa.Command) t[0]).halt()
            .build();
        byte[] image = new byte[(int) p.extMemBytes()];
        new Random(4).nextBytes(image);
        ProgramCosim.Outcome o = assertAgrees(rtl, RandomPrograms.place(image, prog, 0), prog, t[1].toString());
        assertEquals(t[1], o.golden().error());
      }
    }
  }

  private static ProgramCosim.Outcome assertAgrees(NpuRtl rtl, byte[] image, Program prog, String name) {
    ProgramCosim.Outcome o = ProgramCosim.run(rtl, image, 0);
    String what = name + ":\n" + Disassembler.disassemble(prog);
    assertTrue(o.statusMatches(), what + "status " + o.rtl().error() + " vs golden " + o.golden().error());
    assertTrue(o.bitExact(), what + "first differing byte at 0x" + Long.toHexString(o.firstDifference()));
    assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
    return o;
  }
}
