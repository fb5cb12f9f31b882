package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.Disassembler;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * GEMM → DSP chains run one after the other on one Verilated model, as the edge-64 cosim does: the DSP program
 * memory keeps its words across the reset between programs (the RTL's memory has no reset; npu-isa README), so a
 * program that executes words it did not write sees the previous program's words on the RTL and NOPs in the golden.
 * Each program here must therefore execute only its own words ({@link DspChainsProgramMemoryTest}) and then matches
 * the golden on a reused model: memory, status, every counter and the cycles. On the small NPU with 512 program words
 * (the depth at which the generator used to reuse its kernel area within one program and load a later stage's
 * program, truncated, for an earlier stage) this failed before the fix: the second program (seed 3), run on the model
 * the first had used, finished on the RTL while the golden, running NOPs where the RTL had the first program's words,
 * spun to WATCHDOG (the edge64 report's findings 1 and 3: other DSP counts on a reused model, a golden DSP run that
 * never halts).
 */
class ReusedDspModelCosimTest {
  /** The small NPU with the program memory of edge-64 (512 words); shared: also without the PPU, one command slot. */
  static final NpuConfig SMALL_512_WORDS = SharedNpus.SMALL_REDUCED;

  @Test
  void dspChainsAfterOtherChainsOnOneModelAreBitExactWithModelCounters() {
    NpuConfig c = SMALL_512_WORDS;
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      for (int seed : new int[] {1, 3, 5, 1}) {
        Random r = new Random(seed);
        RandomPrograms.Case t = DspChains.generate(c.machine(), r, 2, seed % 2 == 1);
        ProgramCosim.Outcome o = ProgramCosim.run(rtl, t.image(), t.programAddress());
        String what = "seed " + seed + ":\n" + Disassembler.disassemble(t.program());
        assertTrue(o.statusMatches(), what + "status " + o.rtl().error() + " vs golden " + o.golden().error());
        assertTrue(o.bitExact(), what + "first differing byte at 0x" + Long.toHexString(o.firstDifference()));
        assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
        assertEquals(ErrorCause.NONE, o.golden().error(), what);
        assertTrue(o.rtl().counters().get(Counter.DSP_INSTRUCTIONS) > 0, what);
      }
    }
  }
}
