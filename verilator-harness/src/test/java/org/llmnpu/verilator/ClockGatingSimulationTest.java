package org.llmnpu.verilator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.uint;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.ClockGateCell;
import org.llmnpu.hdl.ClockGating;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.hdl.tools.DesignChecks;

/**
 * {@code HwModule.clockGated}: a gated bank behaves as the ungated design while its enable is right, holds its
 * registers while the enable is low, and the CHECKED mode stops a simulation whose enable is wrong.
 */
class ClockGatingSimulationTest {
  /** Counts the cycles its {@code inc} input is high; lives inside the gated bank of {@link GatedAccumulator}. */
  static final class Incrementer extends HwModule {
    final Bool inc = in(bool());
    final UInt count = out(uint(8));

    Incrementer() {
      UInt c = regInit("c", uint(8), 0);
      when(inc, () -> c.set(c.add(1)));
      count.set(c);
    }
  }

  /**
   * {@code acc += value} in cycles with {@code add}, an {@link Incrementer} of those cycles and a one-stage copy of
   * the sum, all in the bank {@code sum} gated by the input {@code enable}; a free-running counter outside it.
   */
  static final class GatedAccumulator extends HwModule {
    final Bool add = in(bool());
    final Bool enable = in(bool());
    final UInt value = in(uint(8));
    final UInt acc = out(uint(16));
    final UInt adds = out(uint(8));
    final UInt cycles = out(uint(8));

    GatedAccumulator(ClockGating gating) {
      UInt free = regInit("free", uint(8), 0);
      free.set(free.add(1));
      cycles.set(free);
      clockGated("sum", enable, gating, () -> {
        UInt a = regInit("a", uint(16), 0);
        when(add, () -> a.set(a.add(value.resize(16))));
        acc.set(a);
        Incrementer counter = instance("counter", new Incrementer());
        counter.inc.set(add);
        adds.set(counter.count);
      });
    }

    @Override
    public String moduleName() {
      return "GatedAccumulator";
    }
  }

  @Test
  void gatedBankEqualsTheUngatedDesignCycleForCycleWhenItsEnableIsRight() {
    try (Simulator gated = SimModes.startLocal(new GatedAccumulator(ClockGating.ON));
         Simulator plain = SimModes.startLocal(new GatedAccumulator(ClockGating.OFF))) {
      Random r = new Random(31);
      for (Simulator s : List.of(gated, plain)) {
        s.reset(2);
      }
      for (int i = 0; i < 400; i++) {
        boolean add = r.nextInt(4) == 0;
        long value = r.nextInt(256);
        for (Simulator s : List.of(gated, plain)) {
          s.poke("add", add ? 1 : 0);
          s.poke("enable", add ? 1 : 0);
          s.poke("value", value);
          s.step(1);
        }
        for (String port : List.of("acc", "adds", "cycles")) {
          assertEquals(plain.peekLong(port), gated.peekLong(port), port + " in cycle " + i);
        }
      }
      assertTrue(plain.peekLong("adds") > 50, "the bank did work");
    }
  }

  @Test
  void gatedBankHoldsItsRegistersWhileTheEnableIsLow() {
    try (Simulator s = SimModes.startLocal(new GatedAccumulator(ClockGating.ON))) {
      s.reset(2);
      s.poke("value", 5);
      s.poke("add", 1);
      s.poke("enable", 1);
      s.step(3);
      assertEquals(15, s.peekLong("acc"));
      s.poke("enable", 0);
      s.step(4);
      assertEquals(15, s.peekLong("acc"), "a gated clock does not tick");
      assertEquals(3, s.peekLong("adds"), "nor does the instance inside the bank");
      assertEquals(7, s.peekLong("cycles"), "the ungated counter runs on (7 cycles since the reset)");
    }
  }

  @Test
  void resetReachesTheGatedBankWhateverTheEnable() {
    try (Simulator s = SimModes.startLocal(new GatedAccumulator(ClockGating.ON))) {
      s.poke("value", 7);
      s.poke("add", 1);
      s.poke("enable", 1);
      s.step(2);
      s.poke("enable", 0);
      s.reset(1);
      assertEquals(0, s.peekLong("acc"));
      assertEquals(0, s.peekLong("adds"));
    }
  }

  @Test
  void checkedModePassesARightEnable() {
    try (Simulator s = SimModes.startLocal(new GatedAccumulator(ClockGating.CHECKED))) {
      s.reset(2);
      Random r = new Random(7);
      for (int i = 0; i < 200; i++) {
        boolean add = r.nextBoolean();
        s.poke("add", add ? 1 : 0);
        s.poke("enable", add ? 1 : 0);
        s.poke("value", r.nextInt(256));
        s.step(1);
      }
      assertTrue(s.peekLong("adds") > 50);
    }
  }

  @Test
  void checkedModeStopsTheSimulationAfterACycleWithAWrongEnable() {
    assertMisGatingStops(s -> {
      s.poke("value", 3);
      s.poke("add", 1);
      s.poke("enable", 1);
      s.step(5);
      s.poke("enable", 0);  // mis-gated: the bank's registers change while its enable is low
    }, "acc");
  }

  @Test
  void checkedModeCatchesAWrongEnableInAnInstanceOfTheBank() {
    // only the instance's counter changes while the enable is low (acc adds 0)
    assertMisGatingStops(s -> {
      s.poke("value", 0);
      s.poke("add", 1);
      s.poke("enable", 0);
    }, "adds");
  }

  /** After reset and {@code setUp}, three more cycles must stop the checked model with the bank's name. */
  private static void assertMisGatingStops(java.util.function.Consumer<Simulator> setUp, String output) {
    Simulator s = SimModes.startLocal(new GatedAccumulator(ClockGating.CHECKED));
    try {
      s.reset(2);
      setUp.accept(s);
      RuntimeException e = assertThrows(RuntimeException.class, () -> {
        s.step(3);
        s.peekLong(output);
      });
      assertTrue(String.valueOf(e.getMessage()).contains("clock gate sum"), e.getMessage());
    } finally {
      try {
        s.close();
      } catch (RuntimeException ignored) {
        // the stopped model may already be gone
      }
    }
  }

  @Test
  void gatedDesignsLintCleanAndListTheirBanks() throws Exception {
    for (ClockGating g : List.of(ClockGating.ON, ClockGating.CHECKED)) {
      VerilogDesign d = Verilog.emit(new GatedAccumulator(g));
      Path dir = Files.createTempDirectory("gated-lint");
      d.writeTo(dir);
      assertEquals(List.of(), DesignChecks.lint(d, dir), g + ": " + d.files());
      assertEquals(1, d.gatedBanks().size());
      assertEquals("sum", d.gatedBanks().get(0).path());
      assertEquals(16 + 8, d.gatedBanks().get(0).registerBits(), "acc and the instance's counter");
      assertEquals(g == ClockGating.ON, d.files().containsKey(ClockGateCell.MODULE + ".v"));
    }
    assertTrue(Verilog.emit(new GatedAccumulator(ClockGating.OFF)).gatedBanks().isEmpty());
  }
}
