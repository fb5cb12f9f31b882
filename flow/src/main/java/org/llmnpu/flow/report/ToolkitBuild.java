package org.llmnpu.flow.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.llmnpu.hdl.tools.ExternalTool;

/**
 * Declared inputs that are not in a job's data: the toolkit's own build (a co-simulation's result depends on the
 * golden models and the lowering, i.e. on the code) and the tools' versions.
 */
public final class ToolkitBuild {
  private static volatile String fingerprint;

  private ToolkitBuild() {
  }

  /**
   * SHA-256 over the contents of every entry of the class path (the shaded {@code npu.jar}, or the modules' class
   * directories and their dependencies' jars in a build): any change of the toolkit's code changes it, so results
   * computed by an older build are never reused.
   */
  public static String fingerprint() {
    String f = fingerprint;
    if (f == null) {
      f = compute(System.getProperty("java.class.path", ""));
      fingerprint = f;
    }
    return f;
  }

  static String compute(String classPath) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[1 << 16];
      for (String entry : classPath.split(java.io.File.pathSeparator)) {
        if (entry.isBlank()) {
          continue;
        }
        Path root = Path.of(entry);
        List<Path> files;
        if (Files.isDirectory(root)) {
          try (Stream<Path> walk = Files.walk(root)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
          }
        } else {
          files = Files.isRegularFile(root) ? List.of(root) : List.of();
        }
        for (Path file : files) {
          sha.update((root.relativize(file).toString() + "\0").getBytes(
              java.nio.charset.StandardCharsets.UTF_8));
          try (InputStream in = Files.newInputStream(file)) {
            for (int n; (n = in.read(buf)) > 0; ) {
              sha.update(buf, 0, n);
            }
          }
        }
      }
      return "toolkit " + HexFormat.of().formatHex(sha.digest());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the toolkit's class path to fingerprint it: " + e.getMessage(), e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 missing from this JVM", e);
    }
  }

  /** {@code verilator --version}'s line, e.g. {@code Verilator 5.006 2023-01-22}. */
  public static String verilatorVersion() {
    ExternalTool.Result r = ExternalTool.run(List.of("verilator", "--version"), Path.of("."), Duration.ofSeconds(60));
    if (!r.ok()) {
      throw new IllegalStateException("verilator --version failed (exit " + r.exitCode() + "): " + r.output().strip());
    }
    return r.output().strip();
  }
}
