package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.llmnpu.reports.activity.SimulatedActivity;
import org.llmnpu.reports.activity.SimulatedActivity.BitStats;

/**
 * OpenSTA's {@code set_power_activity -input} default reaches every pin without an activity of its own, not only the
 * input ports; so every input port bit gets its own value (the run's, or the run's mean input activity for a bit the
 * run did not dump), and the default itself is 0 (in a simulated run nothing is left to take it).
 */
class ActivityAnnotationDefaultTest {
  private static final String NETLIST = """
      module top(clk, a, b, q);
        input clk;
        input a;
        input b;
        output q;
        wire \\u.r ;
        DFFPOSX1 _1_ (
          .CLK(clk),
          .D(a),
          .Q(\\u.r )
        );
        AND2X2 _2_ (
          .A(\\u.r ),
          .B(b),
          .Y(q)
        );
      endmodule
      """;

  private static ActivityAnnotation annotation() {
    Map<String, BitStats> stats = new TreeMap<>();
    stats.put("a", new BitStats(40, 300)); // 0.4 toggles/cycle, duty 0.3; b not dumped
    stats.put("u.r", new BitStats(2, 500)); // 0.02 toggles/cycle
    SimulatedActivity run = new SimulatedActivity("top", 100, 1000, stats);
    return ActivityAnnotation.of(new GateNetlist("top", NETLIST), run, "clk");
  }

  @Test
  void anUndumpedInputPortGetsTheMeanInputActivityAsItsOwnValue() {
    ActivityAnnotation a = annotation();
    assertEquals(0.4, a.meanInputActivity(), 1e-12);
    assertEquals(0.02, a.meanRegisterActivity(), 1e-12);
    assertTrue(a.tcl().startsWith("set_power_activity -input -activity 0\n"), a.tcl());
    assertTrue(a.tcl().contains("get_ports {b}] { sta::set_power_input_port_activity $p 0.4000 0.5000 }"), a.tcl());
    assertTrue(a.tcl().contains("get_pins {_1_/Q}] { sta::set_power_pin_activity $p 0.0200 0.5000 }"), a.tcl());
  }
}
