package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.EngineTiming;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * The NPU with the PiM GEMM engine ({@code engine = pim}) runs the same random DMA → GEMM → DMA
 * programs as with the systolic array: the memory image is bit-exact with the golden ISA simulator
 * (whose GEMM does not depend on the engine), and every counter and the total cycles equal the
 * cycle model with the PiM engine's timing — bit-serial with 32-bit psums, and 4 bits per cycle
 * with 16-bit psums (random INT8 data over K up to 128 saturates them; both sides clamp once per K
 * tile) and a write-back per K tile.
 */
class PimEngineProgramCosimTest {

  @ParameterizedTest(name = "engine {0}, accWidth {1}, icAccumDepth {2}")
  @CsvSource({"pim, 32, 0", "pim-k4, 16, 1"})
  void randomProgramsAreBitExactWithExactCountersAndCycles(String engine, int accWidth, int depth) {
    // pim-k4: the shared model, which also takes two weight rows a cycle (WeightRowsCosimTest)
    NpuConfig c = engine.equals("pim-k4") ? SharedNpus.SMALL_PIM_K4
        : new NpuConfig(4, 4, 2, 1, 8, accWidth, depth, 64, 128, 64, 3, 4, 256, 4, 128, 256, 1L << 16, engine);
    assertEquals(accWidth, c.accWidth());
    assertEquals(depth, c.icAccumDepth());
    Random r = new Random(accWidth * 7 + depth);
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      for (int i = 0; i < 4; i++) {
        RandomPrograms.Case t = RandomPrograms.generate(c.machine(), r, 1 + r.nextInt(3), i % 2 == 1);
        ProgramCosim.Outcome o = ProgramCosim.run(rtl, t.image(), t.programAddress());
        String what = engine + " program " + i + ":\n" + org.llmnpu.isa.Disassembler.disassemble(t.program());
        assertTrue(o.bitExact(), what + "first differing byte at 0x" + Long.toHexString(o.firstDifference()));
        assertTrue(o.statusMatches(), what + "status " + o.rtl().error() + " vs golden " + o.golden().error());
        assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
        assertTrue(o.rtl().counters().get(Counter.MACS) > 0, what);
        IsaSimulator.Result systolic = IsaSimulator.run(c.machine(), EngineTiming.SYSTOLIC, t.image(),
            t.programAddress());
        assertSameImage(systolic.memory(), o.golden().memory(), what + "the golden results do not depend on the engine");
        assertNotEquals(systolic.counter(Counter.CYCLES), o.rtlCycles(), "the PiM engine has its own cycles");
      }
    }
  }

  /** The two memory images are equal byte for byte; else the first differing address and both bytes. */
  private static void assertSameImage(byte[] systolic, byte[] pim, String what) {
    long at = ProgramCosim.firstDifference(systolic, pim);
    if (at >= 0) {
      fail(what + ": first differing byte at 0x" + Long.toHexString(at) + ": " + byteAt(systolic, at)
          + " with the systolic array, " + byteAt(pim, at) + " with the PiM engine (images of " + systolic.length
          + " and " + pim.length + " bytes)");
    }
  }

  private static String byteAt(byte[] image, long at) {
    return at < image.length ? String.format("0x%02x", image[(int) at] & 0xFF) : "none";
  }
}
