package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ConstantTiesTest {
  static final String NETLIST = """
      module T(a, clk, y, z);
        input a;
        input clk;
        output y;
        output [3:0] z;
        wire \\p.q ;
        wire _012_;
        assign z = 4'ha;
        assign _012_ = 1'h0;
        assign \\p.q  = a;
        AND2X1 g (.A(_012_), .B(\\p.q ), .Y(y));
        LLMNPU_SRAM_M m (.RD_EN(1'h1), .RD_CLK(1'b0), .WR_ADDR(a));
      endmodule
      """;

  @Test
  void everyLiteralIsDrivenFromATiePortAndTheRestIsUntouched() {
    String t = ConstantTies.tied(NETLIST);
    assertTrue(t.startsWith("module T(a, clk, y, z, llmnpu_tie0, llmnpu_tie1);\n  input llmnpu_tie0;\n"
        + "  input llmnpu_tie1;"), t);
    assertTrue(t.contains("assign z = {llmnpu_tie1, llmnpu_tie0, llmnpu_tie1, llmnpu_tie0};"), t);
    assertTrue(t.contains("assign _012_ = llmnpu_tie0;"), t);
    assertTrue(t.contains(".RD_EN(llmnpu_tie1), .RD_CLK(llmnpu_tie0)"), t);
    assertTrue(t.contains("assign \\p.q  = a;") && t.contains("AND2X1 g (.A(_012_), .B(\\p.q ), .Y(y));"), t);
    assertFalse(t.contains("'h") || t.contains("'b"), t);
  }

  @Test
  void decimalAndOctalLiteralsAreTiedToo() {
    // Yosys writes an all-zero bus as 32'd0 (the Vector DSP's shift input); left as a literal it was a constant to
    // OpenSTA's simulation, whose disabled arcs the activity search still followed into the level it was iterating
    String t = ConstantTies.tied("module D(y, w);\n  output [3:0] y;\n  output [2:0] w;\n  assign y = 4'd9;\n"
        + "  assign w = 3'o5;\nendmodule\n");
    assertTrue(t.contains("assign y = {llmnpu_tie1, llmnpu_tie0, llmnpu_tie0, llmnpu_tie1};"), t);
    assertTrue(t.contains("assign w = {llmnpu_tie1, llmnpu_tie0, llmnpu_tie1};"), t);
    assertFalse(t.contains("'d") || t.contains("'o"), t);
  }

  @Test
  void aNetlistWithoutConstantsIsReturnedAsItIs() {
    String plain = "module U(a, y);\n  input a;\n  output y;\n  INVX1 i (.A(a), .Y(y));\nendmodule\n";
    assertSame(plain, ConstantTies.tied(plain));
  }

  @Test
  void wideLiteralsKeepTheirBitOrder() {
    assertEquals("{llmnpu_tie0, llmnpu_tie0, llmnpu_tie0, llmnpu_tie1}", ConstantTies.bits(4, "h", "1"));
    assertEquals("llmnpu_tie1", ConstantTies.bits(1, "b", "1"));
    String wide = ConstantTies.bits(40, "h", "8000000001");
    assertTrue(wide.startsWith("{llmnpu_tie1, llmnpu_tie0") && wide.endsWith("llmnpu_tie0, llmnpu_tie1}"), wide);
  }
}
