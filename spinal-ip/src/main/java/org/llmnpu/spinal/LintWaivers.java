package org.llmnpu.spinal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** A reviewed list of lint findings in imported Verilog: lines {@code <rule> <signal> | reason}. */
public final class LintWaivers {
  private LintWaivers() {
  }

  /** The waivers ({@code <rule> <signal>}) of a resource next to {@code anchor}, without comments and reasons. */
  public static List<String> read(Class<?> anchor, String name) {
    try (var in = anchor.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
          .filter(l -> !l.isBlank() && !l.startsWith("#"))
          .map(l -> l.substring(0, l.indexOf('|')).strip())
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Whether a Verilator finding ({@code %Warning-RULE: file:line:col: ... 'signal'}) is this waiver's. */
  public static boolean matches(String waiver, String finding) {
    String[] parts = waiver.split(" ");
    return finding.startsWith("%Warning-" + parts[0] + ":") && finding.contains("'" + parts[1] + "'");
  }
}
