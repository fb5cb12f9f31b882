package org.llmnpu.verilator;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.llmnpu.hdl.tools.ToolCpu;

/** A model executable run as a local process; standard error goes to {@code stderr.log}. */
final class LocalModel implements ModelConnection {
  private final Process process;
  private final Path stderr;
  private final ToolCpu.Metered metered;

  LocalModel(Path executable, Path runDir, Path waveFile) {
    try {
      List<String> cmd = new ArrayList<>(List.of(executable.toString()));
      if (waveFile != null) {
        cmd.add("--waves");
        cmd.add(waveFile.toString());
      }
      stderr = runDir.resolve("stderr.log");
      metered = ToolCpu.meter(cmd);
      process = new ProcessBuilder(metered.command()).directory(runDir.toFile()).redirectError(stderr.toFile()).start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start model " + executable, e);
    }
  }

  @Override
  public OutputStream commands() {
    return process.getOutputStream();
  }

  @Override
  public InputStream answers() {
    return process.getInputStream();
  }

  @Override
  public String diagnostics() {
    String status;
    try {
      status = process.waitFor(2, TimeUnit.SECONDS) ? "exit status " + process.exitValue() : "still running";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      status = "unknown";
    }
    return "model process: " + status + "; stderr tail:\n" + tail(stderr);
  }

  static String tail(Path file) {
    try {
      List<String> lines = Files.exists(file) ? Files.readAllLines(file) : List.of();
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException e) {
      return "(cannot read " + file + ")";
    }
  }

  @Override
  public void close() {
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        kill();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      kill();
    } finally {
      metered.end();
    }
  }

  /** The model and, when it runs under the CPU meter's shell, the shell too. */
  private void kill() {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }
}
