package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Counter;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * Random DMA → GEMM → DMA programs on the generated NPU: the memory image after the run is bit-exact
 * with the golden ISA simulator, and every counter — the golden work counts and the cycle counters
 * of the cycle model, total cycles included — is equal, under several memory timings.
 */
class RandomProgramCosimTest {

  @ParameterizedTest(name = "latency {0}, {1} B/cycle")
  @CsvSource({"3, 4", "1, 4", "9, 1", "5, 2"})
  void randomProgramsAreBitExactWithExactCountersAndCycles(int latency, int bytesPerCycle) {
    NpuConfig c = NpuConfig.small().withMemory(latency, bytesPerCycle);
    Random r = new Random(latency * 100 + bytesPerCycle);
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      for (int i = 0; i < 5; i++) {
        RandomPrograms.Case t = RandomPrograms.generate(c.machine(), r, 1 + r.nextInt(3));
        ProgramCosim.Outcome o = ProgramCosim.run(rtl, t.image(), t.programAddress());
        String what = "program " + i + ":\n" + org.llmnpu.isa.Disassembler.disassemble(t.program());
        assertTrue(o.bitExact(), what + "first differing byte at 0x" + Long.toHexString(o.firstDifference()));
        assertTrue(o.statusMatches(), what + "status " + o.rtl().error() + " vs golden " + o.golden().error());
        assertEquals(Map.of(), mismatches(o), what);
        assertTrue(o.rtl().counters().get(Counter.MACS) > 0, what);
      }
    }
  }

  static Map<String, String> mismatches(ProgramCosim.Outcome o) {
    Map<String, String> m = new java.util.TreeMap<>();
    o.counterMismatches().forEach((k, v) -> m.put(k.key(), "rtl " + v[0] + ", golden/model " + v[1]));
    return m;
  }
}
