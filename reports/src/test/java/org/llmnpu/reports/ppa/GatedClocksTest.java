package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.llmnpu.reports.activity.SimulatedActivity;

/** The gated clock nets found in a Yosys netlist, their duties and the Tcl that makes them ideal (no tools run). */
class GatedClocksTest {
  private static final String NETLIST = "module top(clk);\n  input clk;\n"
      + "  wire \\gemmEngine_clockGate.gated_clk ;\n  wire gemmEngine_clockGate_gated_clk;\n"
      + "  wire \\dspPath_dspUnit_clockGate.gated_clk ;\n  wire other;\nendmodule\n";

  @Test
  void findsEachGateByItsOutputNet() {
    assertEquals(List.of("dspPath_dspUnit", "gemmEngine"), GatedClocks.of(NETLIST).banks());
    assertTrue(GatedClocks.of("module top(clk);\n  input clk;\nendmodule\n").isEmpty());
  }

  @Test
  void theStatedDutyComesFirstThenTheRunsLatchedEnableThenOpen() {
    GatedClocks g = GatedClocks.of(NETLIST);
    SimulatedActivity run = new SimulatedActivity("top", 10, 100,
        Map.of("gemmEngine_clockGate.enable_latched", new SimulatedActivity.BitStats(4, 30)));
    PpaOptions o = PpaOptions.defaults();
    assertEquals(Map.of("dspPath_dspUnit", 1.0, "gemmEngine", 0.3), g.duties(o, run));
    assertEquals(Map.of("dspPath_dspUnit", 1.0, "gemmEngine", 1.0), g.duties(o, null));
    assertEquals(Map.of("dspPath_dspUnit", 0.0, "gemmEngine", 0.5),
        g.duties(o.withGateDuties(Map.of("gemmEngine", 0.5, "dspPath_dspUnit", 0.0)), run));
  }

  @Test
  void aGateOpenHalfTheCyclesClocksItsPinsAtTwiceThePeriodAndAShutOneNotAtAll() {
    Map<String, Double> duties = new TreeMap<>(Map.of("dspPath_dspUnit", 0.0, "gemmEngine", 0.5));
    String tcl = GatedClocks.of(NETLIST).tcl(5.75, duties);
    assertTrue(tcl.contains("llmnpu_ideal_gated_clock {dspPath_dspUnit_clockGate.gated_clk} gated_clock_0 0.000000"),
        tcl);
    assertTrue(tcl.contains("llmnpu_ideal_gated_clock {gemmEngine_clockGate.gated_clk} gated_clock_1 11.500000"), tcl);
    assertEquals(List.of(26403, 13402), GatedClocks.movedPins("x\n==== gated pins 26403 13402\n"));
    assertEquals(List.of(), GatedClocks.movedPins("no line"));
  }

  @Test
  void aDutyOutsideZeroToOneIsRefusedNamingTheGate() {
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> PpaOptions.defaults().withGateDuties(Map.of("gemmEngine", 1.5)));
    assertTrue(e.getMessage().contains("gate duty gemmEngine") && e.getMessage().contains("0..1"), e.getMessage());
  }
}
