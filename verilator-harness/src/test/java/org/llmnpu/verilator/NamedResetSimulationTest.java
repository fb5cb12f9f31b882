package org.llmnpu.verilator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.llmnpu.hdl.Hw.uint;

import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.ClockDomain.Polarity;
import org.llmnpu.hdl.ClockDomain.ResetKind;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.sim.Simulator;

/** {@link Simulator#reset} drives a reset port named to match an existing interface. */
class NamedResetSimulationTest {
  /** A counter whose default domain has the ports {@code clk} and synchronous active-low {@code rst_n}. */
  static final class RstNCounter extends HwModule {
    final UInt count = out(uint(8));

    RstNCounter() {
      defaultDomain("clk", "rst_n", ResetKind.SYNC, Polarity.LOW);
      UInt c = regInit("c", uint(8), 0);
      c.set(c.add(1));
      count.set(c);
    }
  }

  @Test
  void resetHoldsAnActiveLowRstNAndReleasesIt() {
    try (Simulator sim = SimModes.startLocal(new RstNCounter())) {
      sim.step(5);
      sim.reset(2);
      assertEquals(0, sim.peekLong("count"), "held in reset");
      sim.step(3);
      assertEquals(3, sim.peekLong("count"));
    }
  }
}
