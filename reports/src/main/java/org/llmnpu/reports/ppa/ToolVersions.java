package org.llmnpu.reports.ppa;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The versions of the installed tools, asked once per JVM. They are part of every cache key,
 * so upgrading Yosys or OpenSTA invalidates cached results.
 */
public final class ToolVersions {
  private static final ConcurrentHashMap<String, String> VERSIONS = new ConcurrentHashMap<>();

  private ToolVersions() {
  }

  /** {@code yosys -V}, e.g. {@code Yosys 0.23 (git sha1 7ce5011c24b)}. */
  public static String yosys() {
    return VERSIONS.computeIfAbsent("yosys", t -> ask(List.of("yosys", "-V")));
  }

  /** {@code sta -version}, e.g. {@code 2.0.17}. */
  public static String sta() {
    return VERSIONS.computeIfAbsent("sta", t -> ask(List.of("sta", "-version")));
  }

  private static String ask(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new ToolFailure(command.get(0), String.join(" ", command) + " failed", List.of(out));
      }
      return out;
    } catch (IOException e) {
      throw new ToolFailure(command.get(0), "cannot start '" + command.get(0) + "' (" + e.getMessage()
          + "); install it with scripts/setup-tools.sh", List.of());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ToolFailure(command.get(0), command.get(0) + " was interrupted", List.of());
    }
  }
}
