package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The SDC text: clock on {@code clk} or a virtual clock, buses as {@code name[*]}, reset as a false path. */
class TimingConstraintsTest {
  private static final String SYNTH_NETLIST = """
      module Top(clk, reset_n, a, y);
        input clk;
        input reset_n;
        input [7:0] a;
        output [15:0] y;
      endmodule
      """;

  @Test
  void netlistPortsGiveClockBusesAndTheResetFalsePath() {
    var ports = new GateNetlist("Top", SYNTH_NETLIST).ports();
    assertEquals(List.of(new TimingConstraints.Port("clk", 1, true), new TimingConstraints.Port("reset_n", 1, true),
        new TimingConstraints.Port("a", 8, true), new TimingConstraints.Port("y", 16, false)), ports);
    String sdc = TimingConstraints.of(ports, 5.6).sdc("Top");
    assertTrue(sdc.contains("create_clock -name clk -period 5.6 [get_ports {clk}]\n"), sdc);
    assertTrue(sdc.contains("set_input_delay 0 -clock clk [get_ports {reset_n a[*]}]\n"), sdc);
    assertTrue(sdc.contains("set_output_delay 0 -clock clk [get_ports {y[*]}]\n"), sdc);
    assertTrue(sdc.contains("set_false_path -from [get_ports {reset_n}]\n"), sdc);
    assertTrue(sdc.contains("178.6 MHz"), sdc);
  }

  @Test
  void aCombinationalBlockGetsAVirtualClock() {
    var c = TimingConstraints.of(List.of(new TimingConstraints.Port("a", 16, true),
        new TimingConstraints.Port("y", 16, false)), 10);
    String sdc = c.sdc("Comb");
    assertTrue(sdc.contains("create_clock -name clk -period 10\n"), sdc);
    assertTrue(sdc.contains("set_input_delay 0 -clock clk [get_ports {a[*]}]\n"), sdc);
    assertTrue(!sdc.contains("set_false_path"), sdc);
  }

  @Test
  void badPeriodOrDelayIsRefusedWithTheValue() {
    var e = assertThrows(IllegalArgumentException.class, () -> new TimingConstraints("clk", 0, "", List.of(),
        List.of(), 0));
    assertTrue(e.getMessage().contains("period"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> new TimingConstraints("clk", 5, "", List.of(),
        List.of(), 5));
    assertTrue(e.getMessage().contains("I/O delay"), e.getMessage());
  }
}
