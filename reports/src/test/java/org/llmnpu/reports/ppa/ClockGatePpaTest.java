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
    // the worst check of this small design involves the gate itself: its enable into the latch (open from the
    // falling edge, clk') or the latch into the AND (a clock-gating check), each within half a period
    assertTrue(gated.timing().slackNs() > 0, gated.timing().toString());
    String path = gated.timing().startpoint() + " -> " + gated.timing().endpoint();
    assertTrue(path.contains("latch") || path.contains("gating"), path);
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
  void theCriticalPathIsThePathOfLeastSlackWhateverItsGroup() {
    String report = "Startpoint: _2_ (positive level-sensitive latch clocked by clk')\n"
        + "Endpoint: _1_ (rising clock gating-check end-point clocked by clk)\n"
        + "Path Group: **clock_gating_default**\n"
        + "             2.7045   slack (MET)\n\n\n"
        + "Startpoint: _4_ (rising edge-triggered flip-flop clocked by clk)\n"
        + "Endpoint: _3_ (rising edge-triggered flip-flop clocked by clk)\n"
        + "Path Group: clk\n"
        + "             0.0523   slack (MET)\n";
    String worst = StaReports.worstPath(report);
    assertTrue(worst.startsWith("Startpoint: _4_") && worst.contains("0.0523"), worst);
    assertEquals("no paths", StaReports.worstPath("no paths"));
  }

  @Test
  void aDesignWithoutGatesHasNoLatchStep() {
    VerilogDesign d = Verilog.emit(new GatedSum(ClockGating.OFF));
    YosysSynthesis y = new YosysSynthesis(Path.of("lib.lib"), null, false, 5000);
    assertTrue(!y.script(d).contains("latch_map"));
    assertTrue(y.script(Verilog.emit(new GatedSum(ClockGating.ON))).contains("techmap -map latch_map.v"));
  }
}
