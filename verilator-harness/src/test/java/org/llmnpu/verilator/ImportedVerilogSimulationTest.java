package org.llmnpu.verilator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.ImportedDesigns;
import org.llmnpu.hdl.sim.Simulator;

/** hw-dsl logic around an imported hand-written Verilog accumulator, run in Verilator against a Java golden. */
class ImportedVerilogSimulationTest {
  @Test
  void importedAccumulatorMatchesGoldenOnRandomAndSaturatingInputs() {
    try (Simulator sim = SimModes.startLocal(new ImportedDesigns.DifferenceAccumulator())) {
      sim.reset(2);
      var golden = new ImportedDesigns.DifferenceAccumulatorModel();
      Random random = new Random(37);
      boolean sawOverflow = false;
      for (int cycle = 0; cycle < 600; cycle++) {
        boolean saturating = cycle >= 200 && cycle < 400;  // corner case: long runs of extreme operands
        long a = saturating ? (cycle < 300 ? 255 : -256) : random.nextInt(512) - 256;
        long b = saturating ? (cycle < 300 ? -256 : 255) : random.nextInt(512) - 256;
        boolean clear = cycle % 150 == 149 || random.nextInt(64) == 0;
        boolean en = random.nextInt(8) != 0;
        sim.poke("a", a);
        sim.poke("b", b);
        sim.poke("clear", clear ? 1 : 0);
        sim.poke("en", en ? 1 : 0);
        sim.step();
        golden.step(a, b, clear, en);
        assertEquals(golden.acc(), sim.peekSigned("acc").longValue(), "acc at cycle " + cycle);
        assertEquals(2 * golden.acc(), sim.peekSigned("doubled").longValue(), "doubled at cycle " + cycle);
        assertEquals(golden.overflow() ? 1 : 0, sim.peekLong("overflow"), "overflow at cycle " + cycle);
        sawOverflow |= golden.overflow();
      }
      assertTrue(sawOverflow, "the corner-case inputs must saturate the accumulator");
    }
  }
}
