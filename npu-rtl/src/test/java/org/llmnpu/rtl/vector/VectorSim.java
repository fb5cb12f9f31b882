package org.llmnpu.rtl.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.llmnpu.hdl.Module;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.hdl.tools.DesignChecks;
import org.llmnpu.hdl.tools.ExternalTool;
import org.llmnpu.verilator.SimOptions;
import org.llmnpu.verilator.Simulators;

/**
 * Test helpers for the vector units: local Verilator only. In CI ({@code CI=true}) a missing
 * tool fails the test, elsewhere the test is skipped with the install hint.
 */
final class VectorSim {
  private VectorSim() {
  }

  static void require(String tool) {
    boolean present = ExternalTool.find(tool).isPresent();
    if (!present && "true".equals(System.getenv("CI"))) {
      fail("CI needs " + tool + ": " + ExternalTool.installHint(tool));
    }
    assumeTrue(present, () -> "skipped: " + ExternalTool.installHint(tool));
  }

  /** A local Verilator model of the module. */
  static Simulator start(Module top) {
    require("verilator");
    SimOptions base = SimOptions.fromEnvironment();
    SimOptions local = new SimOptions(SimOptions.Mode.LOCAL, base.waves(), base.timeout(), base.cacheDir(),
        base.image(), Path.of("target", "sim-runs"));
    return Simulators.start(Verilog.emit(top), local);
  }

  /** verilator -Wall clean; with {@code synthesize}, also a Yosys synthesis with cells. */
  static void assertLintClean(Module top, boolean synthesize) {
    require("verilator");
    VerilogDesign d = Verilog.emit(top);
    Path dir;
    try {
      dir = Files.createTempDirectory(Path.of("target"), "vector-lint");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    d.writeTo(dir);
    assertEquals(List.of(), DesignChecks.lint(d, dir), "verilator -Wall findings of " + d.top());
    if (synthesize) {
      require("yosys");
      assertTrue(DesignChecks.synthesize(d, dir) > 0, "yosys produced no cells for " + d.top());
    }
  }
}
