package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.Disassembler;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.cosim.decoder.FeaturedNpu;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * The kept X buffer ({@code gemm xKeep=1}, {@code NpuConfig.xKeep}) on the RTL: random programs of X groups — one X
 * loaded, then one to three GEMMs on it, the first copying X and the others keeping it, each with another W (from the
 * scratchpad or streamed as INT8 or INT4, dense and, on the 2:4 array, N:M), their Y stored at once or after the group
 * (so a kept GEMM follows a running one), sometimes with the X source bytes overwritten before a kept GEMM (the buffer's
 * copy counts, not the scratchpad's) and a kept GEMM's {@code x} and {@code xStride} random (neither read nor
 * checked). Some programs end with a kept GEMM the buffer does not hold — another M, K or mode than the last copy,
 * or before any copy since reset — which halts with BAD_SHAPE at that command. Every program is bit-exact with the
 * golden ISA simulator (memory, status, every counter) and RTL cycles = {@code CycleModel}'s (the kept GEMMs' controller
 * and engine formula: no X copy, a streamed GEMM's engine and the next command one cycle after its dispatch).
 *
 * <p>The NPUs are shared with other tests, so no model is built for this class alone: the 2:4 array of
 * {@link SparseGemmCosimTest} and the full-size featured NPU of the decoder tests (dense, 16×16; its lowered
 * stories260K programs keep X too), both built with {@code xKeep}; and {@link NpuConfig#small()}, without it, where
 * the flag halts with UNSUPPORTED as in the golden.
 */
class KeptXCosimTest {
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"2:4 array", "dense featured NPU"})
  void randomProgramsMixingKeptAndCopyingGemmsAreBitExactWithModelCycles(String npu) {
    NpuConfig c = npu.startsWith("2:4") ? SparseGemmCosimTest.config("2:4") : FeaturedNpu.CONFIG;
    assertTrue(c.xKeep());
    Random r = new Random(npu.hashCode());
    int kept = 0;
    int programs = npu.startsWith("2:4") ? 12 : 6;
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      for (int i = 0; i < programs; i++) {
        KeptXPrograms.Case t = KeptXPrograms.generate(c.machine(), r, KeptXPrograms.Ending.values()[i % 4]);
        String what = npu + " program " + i + " (" + t.ending() + "):\n" + Disassembler.disassemble(t.program());
        ProgramCosim.Outcome o = ProgramCosim.run(rtl, t.image(), 0);
        assertEquals(t.expectedError(), o.golden().error(), what);
        if (t.expectedError() != ErrorCause.NONE) {
          assertEquals(t.failingCommand(), o.golden().errorCommand(), what);
        }
        assertTrue(o.statusMatches(), what + "status " + o.rtl().error() + " at " + o.rtl().errorCommand()
            + " vs golden " + o.golden().error() + " at " + o.golden().errorCommand());
        assertTrue(o.bitExact(), what + "first differing byte at 0x" + Long.toHexString(o.firstDifference()));
        assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
        assertEquals(o.modelCycles(), o.rtlCycles(), what);
        kept += t.keptGemms();
      }
    }
    System.out.printf("%s: %d programs, %d kept GEMMs bit-exact, RTL cycles = model%n", npu, programs, kept);
    assertTrue(kept >= programs, "the programs keep X");
  }

  /**
   * A kept GEMM saves its X copy on the RTL as in the model: the same three GEMMs on one X, copying every time and
   * keeping after the first, differ by exactly the X copies' scratchpad reads and cycles.
   */
  @Test
  void keptGemmsSkipTheXCopyOnTheRtl() {
    NpuConfig c = SparseGemmCosimTest.config("2:4");
    MachineParams p = c.machine();
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      long[][] counts = new long[2][];
      for (int keep = 0; keep < 2; keep++) {
        KeptXPrograms.Case t = KeptXPrograms.sameXThreeTimes(p, new Random(7), keep == 1);
        ProgramCosim.Outcome o = ProgramCosim.run(rtl, t.image(), 0);
        String what = Disassembler.disassemble(t.program());
        assertTrue(o.passes(), what + RandomProgramCosimTest.mismatches(o));
        counts[keep] = new long[] {o.rtl().counters().get(Counter.SPAD_READS), o.rtlCycles()};
      }
      long xLines = KeptXPrograms.SAME_M * ((KeptXPrograms.SAME_K + p.lineBytes() - 1) / p.lineBytes());
      assertEquals(2 * xLines, counts[0][0] - counts[1][0], "two X copies of M·ceil(K/line) lines not read");
      assertTrue(counts[1][1] < counts[0][1], "kept: fewer cycles " + counts[1][1] + " vs " + counts[0][1]);
      System.out.printf("three GEMMs on one X on the 2:4 array: %,d cycles copying, %,d keeping%n", counts[0][1],
          counts[1][1]);
    }
  }

  /** Without {@code xKeep} the flag halts with UNSUPPORTED (before any shape check), as in the golden. */
  @Test
  void theFlagIsUnsupportedOnAnNpuBuiltWithoutIt() {
    NpuConfig c = NpuConfig.small();
    MachineParams p = c.machine();
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      for (long m : new long[] {2, 3}) {
        Program prog = Program.builder().load(0x10000, 16, 0, 16, 16, 2).load(0x20000, 16, 64, 16, 8, 16)
            .gemm(2, 16, 8, 0, 16, 64, 16, 512, 32)
            .add(new Command.Gemm(m, 16, 8, 0, 16, 64, 16, 512, 32, Command.DENSE, 0, 0, 0, 0, 0, 1))
            .halt().build();
        byte[] image = new byte[(int) p.extMemBytes()];
        new Random(m).nextBytes(image);
        ProgramCosim.Outcome o = ProgramCosim.run(rtl, RandomPrograms.place(image, prog, 0), 0);
        String what = Disassembler.disassemble(prog);
        assertEquals(ErrorCause.UNSUPPORTED, o.golden().error(), what);
        assertEquals(3, o.golden().errorCommand(), what);
        assertTrue(o.statusMatches(), what + "rtl " + o.rtl().error() + " at " + o.rtl().errorCommand());
        assertTrue(o.bitExact(), what);
        assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
      }
    }
  }
}
