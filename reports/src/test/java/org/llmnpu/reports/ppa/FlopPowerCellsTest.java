package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The flip-flops' power copies ({@link FlopPowerCells}) on the OSU 0.18 µm library: one copy per flip-flop cell, its
 * state output its own function reached from the seed pin, everything else of the cell kept, the library's own text
 * unchanged before the copies; and the power netlist's flip-flop instances renamed, nothing else.
 */
class FlopPowerCellsTest {
  private static String osu018() throws Exception {
    Assumptions.assumeTrue(Files.exists(PpaOptions.OSU018), "OSU018 liberty not installed");
    return YosysSynthesis.read(PpaOptions.OSU018);
  }

  @Test
  void eachFlipFlopCellGetsACopyWhoseOutputIsItsOwnFunctionReachedFromTheSeedPin() throws Exception {
    String lib = osu018();
    assertEquals(List.of("DFFNEGX1", "DFFPOSX1", "DFFSR"), List.copyOf(FlopPowerCells.flipFlopCells(lib)));
    String power = FlopPowerCells.library(lib);
    assertTrue(power.startsWith(lib.substring(0, lib.lastIndexOf('}'))), "the library's cells are unchanged");
    for (String cell : List.of("DFFNEGX1", "DFFPOSX1", "DFFSR")) {
      int at = power.indexOf("cell (LLMNPU_PWR_" + cell + ")");
      assertTrue(at > lib.lastIndexOf('}') - 1, cell + " copied after the library's cells");
      String copy = power.substring(at, power.indexOf("\ncell (", at + 1) < 0 ? power.length()
          : power.indexOf("\ncell (", at + 1));
      assertTrue(copy.contains("pin(" + FlopPowerCells.SEED_PIN + ")"), copy);
      assertTrue(copy.contains("function : \"Q\";"), cell + ": Q is its own function");
      String seedArc = "related_pin : \"" + FlopPowerCells.SEED_PIN + "\";\n      timing_sense : positive_unate;\n"
          + "      timing_type : combinational;";
      assertEquals(1, count(copy, "related_pin : \"" + FlopPowerCells.SEED_PIN + "\""), cell + ": one arc from the seed");
      assertTrue(copy.contains(seedArc), cell + ": the seed's arc is combinational, no setup check (no latch)");
      assertTrue(copy.contains("next_state : \"D\""), cell + " keeps its state");
      assertEquals(count(copy, "internal_power"), count(cellText(lib, cell), "internal_power"), cell + " power kept");
    }
  }

  @Test
  void onlyFlipFlopInstancesAreRenamed() {
    String netlist = "module t(clk, a, y);\n  input clk;\n  input a;\n  output y;\n  wire q;\n"
        + "  DFFPOSX1 \\r_reg[0]  (\n    .CLK(clk),\n    .D(a),\n    .Q(q)\n  );\n"
        + "  INVX1 _1_ (\n    .A(q),\n    .Y(y)\n  );\n  DFFSR _2_ (\n    .CLK(clk),\n    .D(q),\n    .Q()\n  );\n"
        + "endmodule\n";
    String renamed = FlopPowerCells.netlist(netlist, Set.of("DFFPOSX1", "DFFSR", "DFFNEGX1"));
    assertEquals(netlist.replace("  DFFPOSX1 \\r_reg", "  LLMNPU_PWR_DFFPOSX1 \\r_reg")
        .replace("  DFFSR _2_", "  LLMNPU_PWR_DFFSR _2_"), renamed);
    assertEquals(netlist, FlopPowerCells.netlist(netlist, Set.of()));
  }

  private static String cellText(String lib, String cell) {
    int at = lib.indexOf("cell (" + cell + ")");
    return lib.substring(at, lib.indexOf("\ncell (", at + 1));
  }

  private static int count(String s, String word) {
    return s.split(java.util.regex.Pattern.quote(word), -1).length - 1;
  }
}
