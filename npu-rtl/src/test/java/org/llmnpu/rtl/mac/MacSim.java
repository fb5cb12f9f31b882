package org.llmnpu.rtl.mac;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.hdl.tools.ExternalTool;
import org.llmnpu.verilator.SimOptions;
import org.llmnpu.verilator.Simulators;

/**
 * Local Verilator for the MAC tests. In CI ({@code CI=true}) a missing toolchain fails the test;
 * elsewhere the test is skipped with the command that installs it.
 */
final class MacSim {
  private MacSim() {
  }

  static SimOptions options() {
    SimOptions base = SimOptions.fromEnvironment();
    boolean ready = ExternalTool.find("verilator").isPresent() && ExternalTool.find("g++").isPresent()
        && ExternalTool.find("make").isPresent();
    String how = "run scripts/setup-tools.sh as root to install verilator, g++ and make";
    if (!ready && "true".equals(System.getenv("CI"))) {
      fail("CI needs a local Verilator: " + how);
    }
    assumeTrue(ready, () -> "skipped simulation: " + how);
    return new SimOptions(SimOptions.Mode.LOCAL, base.waves(), base.timeout(), base.cacheDir(), base.image(),
        Path.of("target", "sim-runs"));
  }

  /** Builds (or reuses from the cache) and starts a model of the engine, reset for 2 cycles. */
  static Simulator start(GemmEngineConfig config) {
    Simulator s = Simulators.start(Verilog.emit(new GemmEngine(config)), options());
    s.reset(2);
    return s;
  }

  /** Tools needed by lint/synthesis tests, with the same CI policy. */
  static void requireTool(String tool) {
    boolean ready = ExternalTool.find(tool).isPresent();
    if (!ready && "true".equals(System.getenv("CI"))) {
      fail("CI needs " + tool + " on the PATH");
    }
    assumeTrue(ready, () -> "skipped: " + tool + " is not installed");
  }
}
