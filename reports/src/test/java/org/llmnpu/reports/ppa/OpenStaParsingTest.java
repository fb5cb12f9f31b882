package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Reading names out of Yosys gate netlists (escaped identifiers, buses, hierarchy). */
class OpenStaParsingTest {
  private static final String NETLIST = "module pe(clk, x, q);\n  input clk;\n  input [3:0] x;\n  output q;\n"
      + "  DFFPOSX1 _5_ (\n    .CLK(clk),\n    .D(x[0]),\n    .Q(\\acc_q [2] )\n  );\nendmodule\n"
      + "module top(clk, a, y);\n  input clk;\n  wire clk;\n  input [7:0] a;\n  output y;\n"
      + "  DFFPOSX1 _12_ (\n    .CLK(clk),\n    .D(_03_),\n    .Q(\\pe_0_1.psum [31] )\n  );\n"
      + "  DFFPOSX1 _13_ (\n    .CLK(clk),\n    .D(_04_),\n    .Q(count[2])\n  );\n"
      + "  NAND2X1 _14_ (\n    .A(a[0]),\n    .B(a[1]),\n    .Y(y)\n  );\n"
      + "  pe u_pe (\n    .clk(clk),\n    .x(a[3:0]),\n    .q(y)\n  );\nendmodule\n";

  @Test
  void registersAreNamedByTheNetOnTheirQPinThroughTheHierarchy() {
    GateNetlist n = new GateNetlist("top", NETLIST);
    assertEquals("pe_0_1.psum[31]", n.registerAt("_12_"));
    assertEquals("count[2]", n.registerAt("_13_"));
    assertEquals("u_pe/acc_q[2]", n.registerAt("u_pe/_5_"));
    assertNull(n.registerAt("_14_"), "a NAND is not a register");
    assertNull(n.registerAt("u_pe/_99_"));
  }

  @Test
  void inputPortsAreTheTopModulesOnlyWithoutBusRanges() {
    assertEquals(Set.of("clk", "a"), new GateNetlist("top", NETLIST).inputPorts());
    assertEquals(Set.of("clk", "x"), new GateNetlist("pe", NETLIST).inputPorts());
  }

  /** Two levels of modules, each instantiated twice, beside cells: the copies of a module in instance-name order. */
  private static final String HIERARCHY = "module leaf(clk, q);\n  input clk;\n  output q;\n"
      + "  DFFPOSX1 _1_ (\n    .CLK(clk),\n    .D(q),\n    .Q(q)\n  );\nendmodule\n"
      + "module mid(clk, q);\n  input clk;\n  output q;\n"
      + "  leaf z_leaf (\n    .clk(clk),\n    .q(q)\n  );\n"
      + "  INVX1 _2_ (\n    .A(q),\n    .Y(q)\n  );\n"
      + "  leaf a_leaf (\n    .clk(clk),\n    .q(q)\n  );\nendmodule\n"
      + "module top(clk, y);\n  input clk;\n  output y;\n"
      + "  mid u_mid_b (\n    .clk(clk),\n    .q(y)\n  );\n"
      + "  NAND2X1 _3_ (\n    .A(y),\n    .B(y),\n    .Y(y)\n  );\n"
      + "  leaf u_leaf (\n    .clk(clk),\n    .q(y)\n  );\n"
      + "  mid u_mid_a (\n    .clk(clk),\n    .q(y)\n  );\nendmodule\n";

  @Test
  void prefixesOfAModuleAreEveryCopyOfItInInstanceNameOrder() {
    GateNetlist n = new GateNetlist("top", HIERARCHY);
    assertEquals(List.of("u_leaf/", "u_mid_a/a_leaf/", "u_mid_a/z_leaf/", "u_mid_b/a_leaf/", "u_mid_b/z_leaf/"),
        n.prefixesOf("leaf"));
    assertEquals(List.of("u_mid_a/", "u_mid_b/"), n.prefixesOf("mid"));
    assertEquals(List.of(""), n.prefixesOf("top"));
    assertEquals(List.of(), n.prefixesOf("NAND2X1"), "a cell is not a module of the netlist");
    // asked again (the power run asks once per SRAM macro): the same answer
    assertEquals(List.of("u_mid_a/", "u_mid_b/"), n.prefixesOf("mid"));
  }
}
