package org.llmnpu.reports;

import java.nio.file.Files;
import java.nio.file.Path;
import org.llmnpu.hdl.ToolsForTests;
import org.llmnpu.hdl.tools.ExternalTool;

/**
 * The tools a report test needs: executables on the PATH and, for synthesis, the OSU018
 * library. Missing ones fail the test in CI and skip it elsewhere ({@link ToolsForTests}).
 */
public final class RequiredTools {
  public static final Path OSU018 = Path.of("/usr/share/qflow/tech/osu018/osu018_stdcells.lib");

  private RequiredTools() {
  }

  /** Requires the executables and, with {@code yosys}, the OSU018 library. */
  public static void require(String... executables) {
    ToolsForTests.require(executables);
    if (java.util.List.of(executables).contains("yosys")) {
      ToolsForTests.requireReady(Files.isReadable(OSU018), OSU018.toString(),
          "run scripts/setup-tools.sh, or apt-get install -y qflow-tech-osu018");
    }
  }

  /** True when an executable of that name is on PATH. */
  public static boolean onPath(String exe) {
    return ExternalTool.find(exe).isPresent();
  }
}
