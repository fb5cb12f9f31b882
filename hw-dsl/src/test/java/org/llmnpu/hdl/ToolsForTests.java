package org.llmnpu.hdl;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.llmnpu.hdl.tools.ExternalTool;

/**
 * The one place that decides what a test does when a real tool is missing: in CI
 * ({@code CI=true}) the test fails; on a developer machine it is skipped with the install
 * command. Shared with other modules' tests through hw-dsl's test jar.
 */
public final class ToolsForTests {
  private ToolsForTests() {
  }

  /** Requires every executable on the PATH. */
  public static void require(String... tools) {
    for (String tool : tools) {
      boolean present = ExternalTool.find(tool).isPresent();
      if (!present && "true".equals(System.getenv("CI"))) {
        fail("CI needs " + tool + ": " + ExternalTool.installHint(tool));
      }
      assumeTrue(present, () -> "skipped: " + ExternalTool.installHint(tool));
    }
  }

  /** The same policy for a condition that is not an executable (a container image, a file). */
  public static void requireReady(boolean ready, String what, String how) {
    if (!ready && "true".equals(System.getenv("CI"))) {
      fail("CI needs " + what + ": " + how);
    }
    assumeTrue(ready, () -> "skipped, no " + what + ": " + how);
  }
}
