package org.llmnpu.hdl;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.llmnpu.hdl.tools.ExternalTool;

/**
 * Tests that need a real tool call {@link #require}: in CI ({@code CI=true}) a missing tool
 * fails the test; on a developer machine the test is skipped with the install command.
 */
public final class ToolsForTests {
  private ToolsForTests() {
  }

  public static void require(String tool) {
    boolean present = ExternalTool.find(tool).isPresent();
    if (!present && "true".equals(System.getenv("CI"))) {
      fail("CI needs " + tool + ": " + ExternalTool.installHint(tool));
    }
    assumeTrue(present, () -> "skipped: " + ExternalTool.installHint(tool));
  }
}
