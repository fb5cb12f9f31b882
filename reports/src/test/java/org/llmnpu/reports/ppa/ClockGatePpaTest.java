package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.uint;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.ClockGating;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.reports.RequiredTools;
import org.llmnpu.reports.TestDesigns;

/**
 * A clock-gated bank through synthesis and timing: Yosys maps the gate's latch to the library's latch cell and its
 * AND to an AND gate (with the inverter the latch's polarity needs), the flip-flops of the bank are clocked by the
 * gate's output, and OpenSTA times the design with the clock propagated through the gate.
 */
class ClockGatePpaTest {
  /** A 16-bit accumulator on a clock gated by {@code add}, next to an ungated 8-bit counter. */
  static final class GatedSum extends HwModule {
    final Bool add = in(bool());
    final UInt value = in(uint(16));
    final UInt sum = out(uint(16));
    final UInt count = out(uint(8));

    GatedSum(ClockGating gating) {
      UInt c = regInit("c", uint(8), 0);
      c.set(c.add(1));
      count.set(c);
      clockGated("sum", add, gating, () -> {
        UInt s = regInit("s", uint(16), 0);
        when(add, () -> s.set(s.add(value)));
        sum.set(s);
      });
    }
  }

  @BeforeEach
  void tools() {
    RequiredTools.require("yosys", "sta");
  }

  @Test
  void theGateIsTheLibrarysLatchAndAndAndTheClockPropagatesThroughIt() {
    PpaResult gated = PpaFlow.run(Verilog.emit(new GatedSum(ClockGating.ON)), TestDesigns.options());
    PpaResult plain = PpaFlow.run(Verilog.emit(new GatedSum(ClockGating.OFF)), TestDesigns.options());
    var cells = gated.synthesis().cellsByType();
    assertEquals(1, cells.getOrDefault("LATCH", 0), cells.toString());
    assertTrue(cells.getOrDefault("AND2X1", 0) + cells.getOrDefault("AND2X2", 0) >= 1, cells.toString());
    assertEquals(24, gated.synthesis().flipFlops(), cells.toString());
    assertEquals(plain.synthesis().flipFlops(), gated.synthesis().flipFlops());
    assertTrue(gated.synthesis().netlist().contains("LATCH "), "the latch is in the netlist OpenSTA reads");
    // the worst check of this small design is the gate's own: the latch opens at the falling edge (clk') and
    // must hold the AND's enable before the next rising edge (a clock gating check, half a period)
    assertTrue(gated.timing().slackNs() > 0, gated.timing().toString());
    assertTrue(gated.timing().endpoint().contains("clock gating-check")
        || gated.timing().startpoint().startsWith("register"), gated.timing().toString());
  }

  @Test
  void theLibrarysLatchIsFoundAndMappedFromEitherPolarity() throws Exception {
    LibertyLatch latch = LibertyLatch.find(Files.readString(PpaOptions.OSU018)).orElseThrow();
    assertEquals(new LibertyLatch("LATCH", "D", "CLK", true, "Q"), latch);
    String map = latch.techmap();
    assertTrue(map.contains("module \\$_DLATCH_P_") && map.contains("module \\$_DLATCH_N_"), map);
    assertTrue(map.contains("\\$_NOT_ invert (.A(E), .Y(enable_inverted))"), map);
    assertTrue(LibertyLatch.find("library (x) { cell (INV) { pin (A) { direction : input; } } }").isEmpty());
  }

  @Test
  void aDesignWithoutGatesHasNoLatchStep() {
    VerilogDesign d = Verilog.emit(new GatedSum(ClockGating.OFF));
    YosysSynthesis y = new YosysSynthesis(Path.of("lib.lib"), null, false, 5000);
    assertTrue(!y.script(d).contains("latch_map"));
    assertTrue(y.script(Verilog.emit(new GatedSum(ClockGating.ON))).contains("techmap -map latch_map.v"));
  }
}
