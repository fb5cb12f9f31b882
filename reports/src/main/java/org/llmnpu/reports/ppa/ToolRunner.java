package org.llmnpu.reports.ppa;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.llmnpu.hdl.tools.ProcessCleanup;
import org.llmnpu.hdl.tools.ToolCpu;

/**
 * Runs an external EDA tool in a working directory and returns its combined output. A
 * non-zero exit code, a timeout, or an error line in the output raises {@link ToolFailure}
 * quoting the tool's own error lines (Yosys prints {@code ERROR: ...}, OpenSTA {@code Error: ...}).
 */
public final class ToolRunner {
  private static final Pattern ERROR_LINE = Pattern.compile(".*\\b(ERROR|Error):.*");
  private static final int TAIL_LINES = 15;

  private ToolRunner() {
  }

  /**
   * Runs {@code command} in {@code workDir}, waiting at most {@code timeoutSeconds}.
   *
   * @return stdout and stderr, interleaved as the tool wrote them
   */
  public static String run(List<String> command, Path workDir, long timeoutSeconds) {
    String tool = command.get(0);
    Path log = workDir.resolve(Path.of(tool).getFileName() + ".out");
    Process process;
    ToolCpu.Metered metered = ToolCpu.meter(command);
    try {
      process = new ProcessBuilder(metered.command()).directory(workDir.toFile())
          .redirectErrorStream(true).redirectOutput(log.toFile()).start();
      ProcessCleanup.track(process);
    } catch (IOException e) {
      metered.end();
      throw new ToolFailure(tool, "cannot start '" + tool + "' (" + e.getMessage()
          + "); install it with scripts/setup-tools.sh or apt-get install " + debianPackage(tool), List.of());
    }
    try {
      if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        ProcessCleanup.killTree(process);
        throw new ToolFailure(tool, tool + " did not finish within " + timeoutSeconds + " s", List.of());
      }
      String out = Files.readString(log, StandardCharsets.UTF_8);
      List<String> errors = errorLines(out);
      if (process.exitValue() != 0 || !errors.isEmpty()) {
        throw new ToolFailure(tool, tool + " failed (exit code " + process.exitValue() + ") in " + workDir + ":",
            errors.isEmpty() ? tail(out) : errors, process.exitValue());
      }
      return out;
    } catch (IOException e) {
      throw new ToolFailure(tool, "cannot read the output of " + tool + ": " + e.getMessage(), List.of());
    } catch (InterruptedException e) {
      ProcessCleanup.killTree(process);
      Thread.currentThread().interrupt();
      throw new ToolFailure(tool, tool + " was interrupted", List.of());
    } finally {
      ProcessCleanup.forget(process);
      metered.end();
    }
  }

  /** Lines of tool output that report an error, in order. */
  static List<String> errorLines(String out) {
    List<String> errors = new ArrayList<>();
    for (String line : out.split("\n")) {
      if (ERROR_LINE.matcher(line).matches()) {
        errors.add(line.strip());
      }
    }
    return errors;
  }

  private static List<String> tail(String out) {
    List<String> lines = List.of(out.split("\n"));
    return lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size());
  }

  private static String debianPackage(String tool) {
    return switch (Path.of(tool).getFileName().toString()) {
      case "sta" -> "opensta";
      default -> Path.of(tool).getFileName().toString();
    };
  }
}
