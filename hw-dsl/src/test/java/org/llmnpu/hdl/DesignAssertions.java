package org.llmnpu.hdl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.tools.DesignChecks;

/** Lint and synthesis assertions for generator tests; shared through hw-dsl's test jar. */
public final class DesignAssertions {
  private DesignAssertions() {
  }

  /**
   * {@code verilator --lint-only -Wall} has no finding on the emitted design; with
   * {@code synthesize}, Yosys also maps it to cells. Files go under {@code target/}.
   */
  public static VerilogDesign assertLintClean(HwModule top, boolean synthesize) {
    ToolsForTests.require("verilator");
    VerilogDesign d = Verilog.emit(top);
    Path dir;
    try {
      Files.createDirectories(Path.of("target"));
      dir = Files.createTempDirectory(Path.of("target"), "lint-" + d.top() + "-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    d.writeTo(dir);
    assertEquals(List.of(), DesignChecks.lint(d, dir), "verilator -Wall findings of " + d.top());
    if (synthesize) {
      ToolsForTests.require("yosys");
      assertTrue(DesignChecks.synthesize(d, dir) > 0, "yosys produced no cells for " + d.top());
    }
    return d;
  }
}
