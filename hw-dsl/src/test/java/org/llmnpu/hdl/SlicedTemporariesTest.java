package org.llmnpu.hdl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.llmnpu.hdl.Hw.sint;
import static org.llmnpu.hdl.Hw.uint;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.tools.DesignChecks;

/** Keeping the high bits of a product or of a dynamic right shift is lint clean: the dropped bits are intended. */
class SlicedTemporariesTest {
  @TempDir
  Path dir;

  /** A Q-format multiply keeping bits [23:8] of the product and a right shift resized to its operand. */
  static final class HighBits extends HwModule {
    final SInt a = in(sint(12));
    final SInt b = in(sint(12));
    final UInt amount = in(uint(3));
    final SInt high = out(sint(16));
    final SInt shifted = out(sint(12));

    HighBits() {
      high.set(a.mul(b).shiftRight(8));
      shifted.set(a.resize(13).shiftRight(amount).resize(12));
    }
  }

  @Test
  void highBitsOfAProductAndOfAShiftAreLintCleanAndSynthesize() {
    ToolsForTests.require("verilator");
    ToolsForTests.require("yosys");
    VerilogDesign d = Verilog.emit(new HighBits());
    d.writeTo(dir);
    assertEquals(List.of(), DesignChecks.lint(d, dir), "verilator -Wall findings");
    assertTrue(DesignChecks.synthesize(d, dir) > 0);
  }

  @Test
  void onlyTheSlicedTemporaryIsExemptFromTheUnusedCheck() {
    String v = Verilog.emit(new HighBits()).files().get("HighBits.v");
    // the product at the machine word, its factors sign-extended to it (see ExprWriter's signed products)
    String waived = "  /* verilator lint_off UNUSEDSIGNAL */\n"
        + "  wire signed [31:0] _high_mul = $signed({{20{a[11]}}, a}) * $signed({{20{b[11]}}, b});";
    assertTrue(v.contains(waived), v);
    assertEquals(v.split("lint_off").length - 1, v.split("lint_on").length - 1, v);
  }
}
