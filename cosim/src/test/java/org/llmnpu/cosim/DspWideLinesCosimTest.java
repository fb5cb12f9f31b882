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
 * GEMM → DSP chains on an NPU with 16-byte lines (the default line): two program words and eight
 * table entries per memory beat through the DSP's wide host ports, four INT32 elements per
 * scratchpad line on {@code dspin}; in order and overlapped, under two memory timings.
 */
class DspWideLinesCosimTest {
  /** 16×16 array, 16 KiB scratchpad, a 4-lane DSP: the smallest NPU with the default line (shared). */
  static final NpuConfig WIDE = SharedNpus.WIDE_LINES;

  @Test
  void chainsAreBitExactWithExactCountersAndCycles() {
    for (int[] timing : new int[][] {{5, 16}, {9, 4}}) {
      NpuConfig c = WIDE.withMemory(timing[0], timing[1]);
      Random r = new Random(timing[0] * 31 + timing[1]);
      try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
        for (int i = 0; i < 4; i++) {
          RandomPrograms.Case t = DspChains.generate(c.machine(), r, 2, i % 2 == 1);
          ProgramCosim.Outcome o = ProgramCosim.run(rtl, t.image(), t.programAddress());
          String what = "latency " + timing[0] + ", " + timing[1] + " B/cycle, program " + i + ":\n"
              + Disassembler.disassemble(t.program());
          assertEquals(ErrorCause.NONE, o.golden().error(), what);
          assertTrue(o.statusMatches(), what + "status " + o.rtl().error());
          assertTrue(o.bitExact(), what + "first differing byte at 0x" + Long.toHexString(o.firstDifference()));
          assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
          assertTrue(o.rtl().counters().get(Counter.DSP_INSTRUCTIONS) > 0, what);
        }
      }
    }
  }
}
