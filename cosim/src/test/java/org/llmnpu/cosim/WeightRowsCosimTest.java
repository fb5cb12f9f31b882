package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.CycleFormulas;
import org.llmnpu.isa.Disassembler;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * {@code weightRowsPerCycle} 2 and 4 on the small NPU (4×4 array; the GEMM's W copy moves R rows a
 * cycle through R scratchpad read ports into R W-buffer banks), and 2 with the PiM engine (the shared
 * {@link SharedNpus#SMALL_PIM_K4}: 16-bit psums, a write-back per K tile): random
 * DMA → GEMM → DMA programs, in order and overlapped, under two memory timings, are bit-exact with the
 * golden ISA simulator with every counter and the total cycles equal to the cycle model; and each
 * GEMM alone takes its formula's controller cycles, {@code M·ceil(K/rows) + ceil(N/rows)·ceil(K/R) + 1}.
 */
class WeightRowsCosimTest {

  @ParameterizedTest(name = "weightRowsPerCycle {0}, engine {1}")
  @CsvSource({"2, systolic", "4, systolic", "2, pim-k4"})
  void randomProgramsAndLoneGemmsAreBitExactAndCycleExact(int rowsPerCycle, String engine) {
    NpuConfig c = engine.equals("pim-k4") ? SharedNpus.SMALL_PIM_K4
        : NpuConfig.small().withEngine(engine).withWeightRowsPerCycle(rowsPerCycle);
    assertEquals(rowsPerCycle, c.weightRowsPerCycle());
    Random r = new Random(rowsPerCycle * 100 + engine.length());
    for (int[] timing : new int[][] {{3, 4}, {5, 2}}) {
      NpuConfig t = c.withMemory(timing[0], timing[1]);
      try (NpuRtl rtl = NpuRtl.start(t, SimModes.local())) {
        for (int i = 0; i < 4; i++) {
          RandomPrograms.Case p = RandomPrograms.generate(t.machine(), r, 1 + r.nextInt(3), i % 2 == 1);
          ProgramCosim.Outcome o = ProgramCosim.run(rtl, p.image(), p.programAddress());
          String what = t + ", program " + i + ":\n" + Disassembler.disassemble(p.program());
          assertTrue(o.bitExact(), what + "first differing byte at 0x" + Long.toHexString(o.firstDifference()));
          assertTrue(o.statusMatches(), what + "status " + o.rtl().error() + " vs golden " + o.golden().error());
          assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
          assertTrue(o.rtl().counters().get(Counter.MACS) > 0, what);
        }
        if (timing[0] == 3) {
          for (int[] s : new int[][] {{1, 1, 1}, {5, 7, 6}, {3, 64, 1}, {2, 33, 9}, {1, 62, 13}}) {
            loneGemmTakesItsFormula(rtl, s[0], s[1], s[2]);
          }
        }
      }
    }
  }

  private static void loneGemmTakesItsFormula(NpuRtl rtl, int m, int k, int n) {
    MachineParams p = rtl.config().machine();
    int line = p.lineBytes();
    long xStride = (k + line - 1) / line * line;
    long wStride = (n + line - 1) / line * line;
    long yStride = (4L * n + line - 1) / line * line;
    long w = m * xStride;
    long y = w + k * wStride;
    byte[] image = new byte[(int) p.extMemBytes()];
    new Random(m * 1000 + k * 10 + n).nextBytes(image);
    Program all = Program.builder().load(0x10000, xStride, 0, xStride, k, m).load(0x20000, wStride, w, wStride, n, k)
        .gemm(m, k, n, 0, xStride, w, wStride, y, yStride).store(0x30000, yStride, y, yStride, 4L * n, m).halt().build();
    ProgramCosim.Outcome o = ProgramCosim.run(rtl, RandomPrograms.place(image, all, 0), 0);
    String what = "gemm " + m + "x" + k + "x" + n + " on " + rtl.config();
    assertTrue(o.bitExact(), what);
    assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
    int r = p.weightRowsPerCycle();
    long kTiles = (k + line - 1) / line;
    long nTiles = (n + line - 1) / line;
    long wCopy = nTiles * ((k + r - 1) / r);
    assertEquals(wCopy, CycleFormulas.weightCopyCycles(p, k, n));
    long engine = rtl.config().engineTiming().engineCycles(p, m, k, n);
    long drain = m * ((4L * n + line - 1) / line);
    assertEquals(m * kTiles + wCopy + 1 + (engine + 1) + drain, o.rtl().counters().get(Counter.GEMM_CYCLES),
        what + ": X copy + W copy (R rows a cycle) + start + run until done + drain");
    assertEquals(m * kTiles + k * nTiles + drain, o.rtl().counters().get(Counter.SPAD_READS),
        what + ": lines read: X, W (every row once, R a cycle) and the store's");
  }
}
