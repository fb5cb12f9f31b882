package org.llmnpu.rtl.ppm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.llmnpu.hdl.sim.Simulator;

/**
 * Verilator: a single element takes exactly {@link PpmConfig#latency()} cycles from
 * {@code inValid} to {@code outValid} (7 without the PPU, 7 + 3·degree + 4 with it), and a block of
 * M back-to-back rows leaves in M consecutive cycles.
 */
class PpmLatencyTest {

  static Stream<PpmConfig> configurations() {
    return Stream.of(
        PpmConfig.of(8, 8, PpmConfig.Activation.NONE),
        PpmConfig.of(8, 8, PpmConfig.Activation.PPU),
        new PpmConfig(3, 8, PpmConfig.Activation.PPU, 6, 4, 24));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void cyclesFromValidInToValidOutEqualTheFormula(PpmConfig config) {
    int expected = 7 + (config.hasPpu() ? 3 * config.degree() + 4 : 0);
    assertEquals(expected, config.latency(), "documented formula");
    try (PpmBench bench = new PpmBench(config)) {
      Simulator sim = bench.simulator();
      assertEquals(0, sim.peekLong("outValid"), "no output after reset");
      sim.poke("inValid", 1);
      sim.step();
      sim.poke("inValid", 0);
      long waited = sim.runUntil("outValid", 1, 64);
      assertEquals(expected, waited + 1, "cycles from inValid to outValid");
      sim.step();
      assertEquals(0, sim.peekLong("outValid"), "one element in, one out");

      int rows = 20;
      for (int step = 1; step <= rows + expected + 2; step++) {
        sim.poke("inValid", step <= rows ? 1 : 0);
        sim.step();
        boolean rowLeaves = step >= expected && step <= rows + expected - 1;
        assertEquals(rowLeaves ? 1 : 0, sim.peekLong("outValid"), "after step " + step + " of a block of " + rows);
      }
      assertEquals(0, sim.peekLong("outValid"), "after the block");
    }
  }
}
