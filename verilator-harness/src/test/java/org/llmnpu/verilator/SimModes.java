package org.llmnpu.verilator;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;

/**
 * The two toolchains for parameterized tests. In CI ({@code CI=true}) a toolchain that is
 * not ready fails the test; elsewhere the test is skipped with the command that prepares it.
 */
final class SimModes {
  private SimModes() {
  }

  static SimOptions options(SimOptions.Mode mode) {
    SimOptions base = SimOptions.fromEnvironment();
    base = new SimOptions(mode, base.waves(), base.timeout(), base.cacheDir(), base.image(),
        Path.of("target", "sim-runs"));
    boolean ready = mode == SimOptions.Mode.LOCAL ? LocalToolchain.available() : ContainerModel.available(base.image());
    String how = mode == SimOptions.Mode.LOCAL
        ? "run scripts/setup-tools.sh as root to install verilator, g++ and make"
        : "run scripts/build-verilator-image.sh as root to start Docker and build " + base.image();
    if (!ready && "true".equals(System.getenv("CI"))) {
      fail("CI needs the " + mode + " toolchain: " + how);
    }
    assumeTrue(ready, () -> "skipped " + mode + " simulation: " + how);
    return base;
  }
}
