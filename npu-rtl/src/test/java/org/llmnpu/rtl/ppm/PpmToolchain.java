package org.llmnpu.rtl.ppm;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import org.llmnpu.hdl.tools.ExternalTool;
import org.llmnpu.verilator.SimOptions;

/**
 * Tools the PPM tests need. In CI ({@code CI=true}) a missing tool fails the test; elsewhere the
 * test is skipped with the command that installs it. Simulation runs in local mode only.
 */
final class PpmToolchain {
  private PpmToolchain() {
  }

  static void require(String tool) {
    boolean present = ExternalTool.find(tool).isPresent();
    if (!present && "true".equals(System.getenv("CI"))) {
      fail("CI needs " + tool + ": " + ExternalTool.installHint(tool));
    }
    assumeTrue(present, () -> "skipped: " + ExternalTool.installHint(tool));
  }

  /** Options for a local Verilator model (verilator, g++ and make on the PATH). */
  static SimOptions localSimulation() {
    require("verilator");
    require("g++");
    require("make");
    SimOptions base = SimOptions.fromEnvironment();
    return new SimOptions(SimOptions.Mode.LOCAL, base.waves(), base.timeout(), base.cacheDir(), base.image(),
        Path.of("target", "sim-runs"));
  }
}
