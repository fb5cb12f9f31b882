package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Reading names out of Yosys netlists (escaped identifiers, buses). */
class OpenStaParsingTest {
  private static final String NETLIST = "module top(clk, a, y);\n  input clk;\n  wire clk;\n"
      + "  input [7:0] a;\n  output y;\n"
      + "  DFFPOSX1 _12_ (\n    .CLK(clk),\n    .D(_03_),\n    .Q(\\pe_0_1.psum [31] )\n  );\n"
      + "  DFFPOSX1 _13_ (\n    .CLK(clk),\n    .D(_04_),\n    .Q(count[2])\n  );\n"
      + "  NAND2X1 _14_ (\n    .A(a[0]),\n    .B(a[1]),\n    .Y(y)\n  );\nendmodule\n";

  @Test
  void registersAreNamedByTheNetOnTheirQPin() {
    assertEquals(Map.of("_12_", "pe_0_1.psum[31]", "_13_", "count[2]"), OpenSta.registerOutputs(NETLIST));
  }

  @Test
  void inputPortsIncludeBusesWithoutTheirRange() {
    assertEquals(Set.of("clk", "a"), OpenSta.inputPorts(NETLIST));
  }
}
