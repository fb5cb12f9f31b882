package org.llmnpu.reports;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * Checks that the real tools a test needs are installed. In CI ({@code CI=true}) a missing
 * tool fails the test; locally the test is skipped with a message saying how to install it.
 */
public final class RequiredTools {
  public static final Path OSU018 = Path.of("/usr/share/qflow/tech/osu018/osu018_stdcells.lib");

  private RequiredTools() {
  }

  /** Requires the executables (on PATH) and, for synthesis, the OSU018 library. */
  public static void require(String... executables) {
    List<String> missing = new ArrayList<>();
    for (String exe : executables) {
      if (!onPath(exe)) {
        missing.add(exe);
      }
    }
    if (List.of(executables).contains("yosys") && !Files.isReadable(OSU018)) {
      missing.add(OSU018.toString());
    }
    if (missing.isEmpty()) {
      return;
    }
    String message = "missing " + String.join(", ", missing) + ": run scripts/setup-tools.sh, or "
        + "apt-get install -y yosys opensta qflow-tech-osu018 chromium";
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      fail("CI=true and " + message);
    }
    Assumptions.abort("skipped, " + message);
  }

  /** True when an executable of that name is on PATH. */
  public static boolean onPath(String exe) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, exe))) {
        return true;
      }
    }
    return false;
  }
}
