package org.llmnpu.reports.html;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import org.llmnpu.reports.ppa.ContentCache;

/**
 * Writes a report's {@code index.html}, {@code ppa.json} and {@code ppa.csv} into a directory
 * all at once: the files go into a temporary sibling directory which is then renamed to the
 * target, so a failure never leaves a half-written report (an existing report is replaced only
 * after the new one is complete).
 */
public final class ReportWriter {
  private ReportWriter() {
  }

  /** The report's files, by name. */
  public static Map<String, String> files(PpaReport report) {
    Map<String, String> out = new LinkedHashMap<>();
    out.put("index.html", HtmlReport.render(report));
    out.put("ppa.json", PpaJson.render(report));
    out.put("ppa.csv", PpaCsv.render(report));
    return out;
  }

  /** Writes the report into {@code dir}, replacing what was there. */
  public static void write(PpaReport report, Path dir) {
    Map<String, String> files = files(report);
    Path target = dir.toAbsolutePath().normalize();
    Path parent = target.getParent();
    Path tmp = null;
    Path old = null;
    try {
      Files.createDirectories(parent);
      tmp = Files.createTempDirectory(parent, "." + target.getFileName() + ".tmp-");
      for (var f : files.entrySet()) {
        Files.writeString(tmp.resolve(f.getKey()), f.getValue(), StandardCharsets.UTF_8);
      }
      if (Files.exists(target)) {
        old = Files.createTempDirectory(parent, "." + target.getFileName() + ".old-");
        Files.delete(old);
        Files.move(target, old, StandardCopyOption.ATOMIC_MOVE);
      }
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
      tmp = null;
      if (old != null) {
        ContentCache.deleteTree(old);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the report to " + target + ": " + e.getMessage(), e);
    } finally {
      try {
        if (tmp != null) {
          ContentCache.deleteTree(tmp);
        }
      } catch (IOException ignored) {
        // the temporary directory is hidden and harmless; the original error matters more
      }
    }
  }
}
