package org.llmnpu.reports.html;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.llmnpu.reports.OutputDirectory;

/**
 * Writes a report's {@code index.html}, {@code ppa.json} and {@code ppa.csv} into a directory
 * through {@link OutputDirectory}: each file atomically, nothing the toolkit did not write is
 * deleted, and a directory holding other files is refused unless forced.
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

  /** Writes the report into {@code dir} (new, empty, or an earlier report's directory). */
  public static void write(PpaReport report, Path dir) {
    write(report, dir.toString(), false);
  }

  /**
   * Writes the report into {@code dir}; with {@code force} also into a directory holding
   * other files (which are kept).
   *
   * @throws OutputDirectory.Refused if the directory may not be written
   */
  public static void write(PpaReport report, String dir, boolean force) {
    Map<String, String> files = files(report);
    OutputDirectory out = OutputDirectory.open("ppa-report", "-o", dir, force);
    files.forEach(out::write);
    out.finish();
  }
}
