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
 * (K = 172, N = 37, several N tiles and K tiles, M past mTile; a K split whose second half accumulates), N:M with
 * packed metadata on the 2:4 and 4:8 arrays, under several memory timings: bit-exact with the
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

  /**
   * The engine starts with the X copy and each pass waits for its K tile's X lines: random M (1..32, past mTile; 24
   * with K = 172), K (9..256, past one K tile) and N (1..64, 37 with K = 172), INT8 and INT4, on the 8×8 NPU with a fast
   * memory (latency 1, 8 bytes a cycle), so the X copy rather than the W stream bounds many passes. Every counter and
   * the cycles equal the model's, in which pass (nt, kt) starts no earlier than engine cycle {@code (kt + 1)·M − 1}:
   * an engine that started a pass a cycle before its K tile's last X line was in (or a cycle later) fails.
   */
  @Test
  void streamedGemmsStartTheirEngineWithTheXCopy() {
    NpuConfig c = new NpuConfig(8, 8, 2, 1, 8, 32, 2, 32, 256, 64, 7, 4, 256, 4, 128, 256, 1L << 16,
        "systolic", 1, false, false, "dense").withMemory(1, 8);
    Random r = new Random(31);
    int[][] shapes = new int[8][];
    shapes[0] = new int[] {24, 172, 37};
    shapes[1] = new int[] {1, 172, 37};
    MachineParams p = c.machine();
    for (int i = 2; i < shapes.length; i++) {
      // X and Y within the scratchpad
      do {
        shapes[i] = new int[] {1 + r.nextInt(32), 9 + r.nextInt(248), 1 + r.nextInt(64)};
      } while (shapes[i][0] * (GemmCosimFixture.lines(p, shapes[i][1]) + GemmCosimFixture.lines(p, 4L * shapes[i][2]))
          > p.spadBytes());
    }
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      streamedShapes(rtl, r, shapes);
    }
  }

  private static void raggedShapes(NpuRtl rtl, Random r) {
    MachineParams p = rtl.config().machine();
    streamedShapes(rtl, r,
        new int[][] {{1, 172, 37}, {1, 256, 64}, {13, 172, 37}, {20, 7, 9}, {1, 1, 1}, {3, 33, 5}, {32, 100, 17}});
    // K split into two streamed GEMMs, the second accumulating into the first's Y (INT8, then INT4)
    int m = 9;
    int k = 172;
    int n = 37;
    int k1 = 64;
    long xStride = GemmCosimFixture.lines(p, k);
    long yStride = GemmCosimFixture.lines(p, 4L * n);
    long y = m * xStride;
    for (boolean int4 : new boolean[] {false, true}) {
      long wStride = GemmCosimFixture.lines(p, int4 ? (n + 1) / 2 : n);
      Program prog = Program.builder()
          .load(GemmCosimFixture.EXT_X, xStride, 0, xStride, k, m)
          .gemmStreamed(m, k1, n, 0, xStride, GemmCosimFixture.EXT_W, wStride, y, yStride, int4)
          .add(new org.llmnpu.isa.Command.Gemm(m, k - k1, n, k1, xStride, GemmCosimFixture.EXT_W + k1 * wStride,
              wStride, y, yStride, 0, 1, 1, int4 ? 1 : 0, 0))
          .store(GemmCosimFixture.EXT_Y, yStride, y, yStride, 4L * n, m)
          .halt().build();
      byte[] image = new byte[(int) p.extMemBytes()];
      r.nextBytes(image);
      assertAgrees(rtl, RandomPrograms.place(image, prog, 0), prog, "K split, accumulate" + (int4 ? " INT4" : ""));
    }
  }

  /** Lone streamed GEMMs of {@code shapes} (M, K, N), INT8 and INT4, each followed by a store of its Y. */
  private static void streamedShapes(NpuRtl rtl, Random r, int[][] shapes) {
    MachineParams p = rtl.config().machine();
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
    // INT4 rows of ceil(N/2) bytes: N = 7 ends at the memory's end, N = 9 one byte past it
    org.llmnpu.isa.Command.Gemm int4AtTheEnd = new org.llmnpu.isa.Command.Gemm(2, 8, 7, 0, 8, end - 7 * 8 - 4, 8,
        0x200, 32, 0, 0, 1, 1, 0);
    org.llmnpu.isa.Command.Gemm int4OddPastTheEnd = new org.llmnpu.isa.Command.Gemm(2, 8, 9, 0, 8, end - 7 * 8 - 4,
        8, 0x200, 64, 0, 0, 1, 1, 0);
    Object[][] cases = {{int4WithoutStream, ErrorCause.BAD_SHAPE}, {pastTheEnd, ErrorCause.EXT_ADDRESS},
        {misaligned, ErrorCause.EXT_ADDRESS}, {sparse, ErrorCause.UNSUPPORTED}, {int4AtTheEnd, ErrorCause.NONE},
        {int4OddPastTheEnd, ErrorCause.EXT_ADDRESS}};
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

  /**
   * N:M GEMMs whose W streams as packed metadata then values (random distinct positions per group, random unused
   * field bits with 4:8), and dense streamed GEMMs (INT8 and INT4) on the same N:M array, ragged shapes.
   */
  @org.junit.jupiter.params.ParameterizedTest(name = "sparsity {0}")
  @org.junit.jupiter.params.provider.ValueSource(strings = {"2:4", "4:8"})
  void packedNmStreamsAreBitExactWithExactCountersAndCycles(String sparsity) {
    NpuConfig c = SparseGemmCosimTest.config(sparsity);
    MachineParams p = c.machine();
    int mode = c.sparsityCode();
    int kept = mode == org.llmnpu.isa.Command.S2_4 ? 2 : 4;
    int group = 2 * kept;
    int fields = group == 4 ? 4 : 2;
    Random r = new Random(group);
    int[][] shapes = {{1, 172, 37}, {5, 7, 6}, {17, 172, 20}, {3, 30, 64}, {1, 1, 1}, {1, 256, 64}};
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      for (int[] s : shapes) {
        int m = s[0];
        int k = s[1];
        int n = s[2];
        int groups = (k + group - 1) / group;
        int values = kept * groups;
        int metaRows = (values + fields - 1) / fields;
        long xStride = GemmCosimFixture.lines(p, k);
        long yStride = GemmCosimFixture.lines(p, 4L * n);
        long wStride = GemmCosimFixture.lines(p, n) + p.lineBytes() * r.nextInt(2);
        long y = m * xStride;
        byte[] image = new byte[(int) p.extMemBytes()];
        r.nextBytes(image);
        writePackedMetadata(image, r, mode, k, n, (int) GemmCosimFixture.EXT_W, wStride);
        for (int variant = 0; variant < 3; variant++) {
          boolean nm = variant == 0;
          boolean int4 = variant == 2;
          long denseStride = GemmCosimFixture.lines(p, int4 ? (n + 1) / 2 : n);
          org.llmnpu.isa.Command.Gemm gemm = new org.llmnpu.isa.Command.Gemm(m, k, n, 0, xStride,
              GemmCosimFixture.EXT_W, nm ? wStride : denseStride, y, yStride, nm ? mode : 0, 0, 1, int4 ? 1 : 0, 0);
          Program prog = Program.builder()
              .load(GemmCosimFixture.EXT_X, xStride, 0, xStride, k, m)
              .add(gemm)
              .store(GemmCosimFixture.EXT_Y, yStride, y, yStride, 4L * n, m)
              .halt().build();
          ProgramCosim.Outcome o = assertAgrees(rtl, RandomPrograms.place(image.clone(), prog, 0), prog,
              sparsity + " " + m + "x" + k + "x" + n + (nm ? " N:M" : int4 ? " dense INT4" : " dense INT8"));
          assertEquals(ErrorCause.NONE, o.golden().error());
          assertEquals((long) m * n * (nm ? values : k), o.rtl().counters().get(Counter.MACS));
          long rowsRead = nm ? values + metaRows : k;
          assertEquals((long) m * k + rowsRead * (int4 ? (n + 1) / 2 : n), o.rtl().counters().get(Counter.DMA_LOAD_BYTES),
              "X bytes and the streamed W rows");
        }
      }
    }
  }

  /**
   * The packed metadata rows of a streamed N:M W ({@code mode} 2:4 or 4:8) of K {@code k} and N {@code n} at
   * {@code base} (stride {@code wStride}) of {@code image}: per group and column E distinct random positions, with
   * random unused field bits on 4:8; the value rows after them stay as they are.
   */
  static void writePackedMetadata(byte[] image, Random r, int mode, int k, int n, int base, long wStride) {
    int kept = mode == org.llmnpu.isa.Command.S2_4 ? 2 : 4;
    int group = 2 * kept;
    int fields = group == 4 ? 4 : 2;
    int groups = (k + group - 1) / group;
    for (int col = 0; col < n; col++) {
      for (int g = 0; g < groups; g++) {
        java.util.List<Integer> pos = new java.util.ArrayList<>();
        for (int i = 0; i < group; i++) {
          pos.add(i);
        }
        java.util.Collections.shuffle(pos, r);
        for (int e = 0; e < kept; e++) {
          int row = g * kept + e;
          int meta = (int) (base + (row / fields) * wStride + col);
          int shift = row % fields * (8 / fields);
          int mask = ((1 << (8 / fields)) - 1) << shift;
          image[meta] = (byte) ((image[meta] & ~mask) | ((pos.get(e) | (group == 8 ? r.nextInt(2) << 3 : 0)) << shift));
        }
      }
    }
  }

  static ProgramCosim.Outcome assertAgrees(NpuRtl rtl, byte[] image, Program prog, String name) {
    ProgramCosim.Outcome o = ProgramCosim.run(rtl, image, 0);
    String what = name + ":\n" + Disassembler.disassemble(prog);
    assertTrue(o.statusMatches(), what + "status " + o.rtl().error() + " vs golden " + o.golden().error());
    assertTrue(o.bitExact(), what + "first differing byte at 0x" + Long.toHexString(o.firstDifference()));
    assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
    return o;
  }
}
