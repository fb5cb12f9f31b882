package org.llmnpu.hdl.tools;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Finds and runs the external tools (Verilator, Yosys, OpenSTA) with a timeout. */
public final class ExternalTool {
  private ExternalTool() {
  }

  /** The result of a finished run: exit status and the combined standard output and error. */
  public record Result(int exitCode, String output) {
    public boolean ok() {
      return exitCode == 0;
    }
  }

  /** The executable {@code name} on the PATH, if any. */
  public static Optional<Path> find(String name) {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : path.split(File.pathSeparator)) {
      Path p = Path.of(dir, name);
      if (Files.isRegularFile(p) && Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** How to get a missing tool, for messages. */
  public static String installHint(String name) {
    return "'" + name + "' is not on the PATH; install it with scripts/setup-tools.sh (as root) "
        + "or: apt-get install " + debianPackage(name);
  }

  private static String debianPackage(String name) {
    return switch (name) {
      case "sta" -> "opensta";
      case "g++" -> "g++";
      default -> name;
    };
  }

  /**
   * Runs {@code command} in {@code dir}; a run longer than {@code timeout} is killed and
   * reported as an exception naming the command.
   */
  public static Result run(List<String> command, Path dir, Duration timeout) {
    return run(command, dir, timeout, Map.of());
  }

  /** As {@link #run(List, Path, Duration)}, with {@code env} added to the process's environment. */
  public static Result run(List<String> command, Path dir, Duration timeout, Map<String, String> env) {
    if (find(command.get(0)).isEmpty() && !command.get(0).contains("/")) {
      throw new IllegalStateException(installHint(command.get(0)));
    }
    try {
      Path logDir = ProcessCleanup.tempDirectory("llmnpu-tool-");
      Path log = logDir.resolve("output.log");
      try {
        ToolCpu.Metered metered = ToolCpu.meter(command);
        ProcessBuilder builder = new ProcessBuilder(metered.command()).directory(dir.toFile())
            .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(env);
        Process p = builder.start();
        ProcessCleanup.track(p);
        try {
          if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            ProcessCleanup.killTree(p);
            throw new IllegalStateException(command.get(0) + " did not finish within " + timeout.toSeconds()
                + " s: " + String.join(" ", command));
          }
          return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
          ProcessCleanup.killTree(p);
          throw e;
        } finally {
          ProcessCleanup.forget(p);
          metered.end();
        }
      } finally {
        ProcessCleanup.delete(logDir);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + command.get(0) + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + command.get(0), e);
    }
  }
}
