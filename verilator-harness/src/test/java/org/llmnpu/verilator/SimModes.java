package org.llmnpu.verilator;

import java.nio.file.Path;
import org.llmnpu.hdl.ToolsForTests;

/**
 * Simulation options for tests, in either toolchain, with runs under {@code target/sim-runs}.
 * A toolchain that is not ready fails the test in CI and skips it elsewhere
 * ({@link ToolsForTests}). Shared with other modules' tests through this module's test jar.
 */
public final class SimModes {
  private SimModes() {
  }

  /** Options for a local Verilator (verilator, g++, make on the PATH). */
  public static SimOptions local() {
    return options(SimOptions.Mode.LOCAL);
  }

  /** A local Verilator model of {@code top}. */
  public static org.llmnpu.hdl.sim.Simulator startLocal(org.llmnpu.hdl.HwModule top) {
    return Simulators.start(org.llmnpu.hdl.emit.Verilog.emit(top), local());
  }

  public static SimOptions options(SimOptions.Mode mode) {
    SimOptions base = SimOptions.fromEnvironment();
    base = new SimOptions(mode, base.waves(), base.timeout(), base.cacheDir(), base.image(),
        Path.of("target", "sim-runs"));
    if (mode == SimOptions.Mode.LOCAL) {
      ToolsForTests.require("verilator", "g++", "make");
    } else {
      ToolsForTests.requireReady(ContainerModel.available(base.image()), "container image " + base.image(),
          "run scripts/build-verilator-image.sh as root to start Docker and build it");
    }
    return base;
  }
}
