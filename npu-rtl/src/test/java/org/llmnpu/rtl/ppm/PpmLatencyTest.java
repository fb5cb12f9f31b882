package org.llmnpu.rtl.ppm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.llmnpu.hdl.sim.Simulator;

/**
 * Verilator: a single element takes exactly {@link PpmConfig#latency()} cycles from
 * {@code inValid} to {@code outValid} ({@code requantStages} without the PPU,
 * {@code requantStages + 2 + hornerStages·degree + outputStages} with it, outputStages = 2 for
 * hornerStages 3, else 3), and a block of M back-to-back rows leaves in M consecutive cycles.
 * The expected values are written out here, not computed by the class under test.
 */
class PpmLatencyTest {

  /** A configuration and its documented latency. */
  record Case(PpmConfig config, int latency) {
    @Override
    public String toString() {
      return config.moduleName() + " L=" + latency;
    }
  }

  static Stream<Case> configurations() {
    return Stream.of(
        new Case(PpmConfig.of(8, 8, PpmConfig.Activation.NONE), 8),
        new Case(PpmConfig.of(8, 8, PpmConfig.Activation.PPU), 8 + 2 + 5 * 2 + 3),
        new Case(new PpmConfig(3, 8, PpmConfig.Activation.PPU, 6, 4, 24), 8 + 2 + 5 * 4 + 3),
        new Case(PpmConfig.of(2, 8, PpmConfig.Activation.RELU).withStages(6, 5), 6),
        new Case(PpmConfig.of(2, 8, PpmConfig.Activation.PPU).withStages(7, 3), 7 + 2 + 3 * 2 + 2),
        new Case(PpmConfig.of(2, 8, PpmConfig.Activation.PPU).withStages(6, 4), 6 + 2 + 4 * 2 + 3));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void cyclesFromValidInToValidOutEqualTheFormula(Case c) {
    PpmConfig config = c.config();
    int expected = c.latency();
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
