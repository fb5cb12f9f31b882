package org.llmnpu.cosim.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The benchmarks' recorded output, {@code bench-results/<Bench>.txt} as {@code org.llmnpu.hdl.bench.BenchRecord}
 * writes it (one {@code == method} section per benchmark method, with the command that reproduces it, its UTC date
 * and its outcome, then what the benchmark printed), read so that a report quotes a benchmark's last recorded figures
 * and names them instead of retyping them. A file or section that is missing, or whose run did not pass, is
 * {@linkplain #section absent}: the report then says "not measured" and why ({@link #missing}).
 */
public final class BenchResults {
  /** The folder at the repository root. */
  public static final String FOLDER = "bench-results";

  private final Path dir;

  private BenchResults(Path dir) {
    this.dir = dir;
  }

  /** The results in {@code dir} (a {@code bench-results} folder), or none when {@code dir} is null. */
  public static BenchResults at(Path dir) {
    return new BenchResults(dir);
  }

  /**
   * The repository's {@code bench-results}: under {@code -Dllmnpu.repoRoot}, else under the first parent of the
   * working directory holding {@code scripts/test.sh}; none when there is no such folder (a report run outside
   * the repository then says "not measured" for the recorded figures).
   */
  public static BenchResults locate() {
    String configured = System.getProperty("llmnpu.repoRoot");
    if (configured != null && !configured.isBlank()) {
      return at(existing(Path.of(configured).resolve(FOLDER)));
    }
    for (Path p = Path.of(System.getProperty("user.dir")).toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.exists(p.resolve("scripts").resolve("test.sh"))) {
        return at(existing(p.resolve(FOLDER)));
      }
    }
    return at(null);
  }

  private static Path existing(Path dir) {
    return Files.isDirectory(dir) ? dir : null;
  }

  /** The folder read, or null. */
  public Path dir() {
    return dir;
  }

  /**
   * One recorded benchmark method.
   *
   * @param bench   the benchmark class
   * @param method  the method
   * @param file    the file it was read from
   * @param command the command that reproduces it
   * @param date    when it ran (UTC)
   * @param body    what it printed
   */
  public record Section(String bench, String method, Path file, String command, String date, String body) {
    /** How a report names it: benchmark, file, date and command. */
    public String citation() {
      return bench + "#" + method + " recorded in " + FOLDER + "/" + file.getFileName() + " on " + date + " ("
          + command + ")";
    }

    /**
     * The first Markdown table printed after the first line that starts with {@code heading} (or the first
     * table when {@code heading} is empty).
     */
    public Optional<Table> table(String heading) {
      List<String> lines = body.lines().toList();
      int i = 0;
      if (!heading.isEmpty()) {
        while (i < lines.size() && !lines.get(i).startsWith(heading)) {
          i++;
        }
      }
      while (i < lines.size() && !lines.get(i).startsWith("|")) {
        i++;
      }
      if (i >= lines.size()) {
        return Optional.empty();
      }
      List<String> header = cells(lines.get(i));
      List<List<String>> rows = new ArrayList<>();
      for (i++; i < lines.size() && lines.get(i).startsWith("|"); i++) {
        if (!lines.get(i).startsWith("|---") && !lines.get(i).startsWith("|:")) {
          rows.add(cells(lines.get(i)));
        }
      }
      return Optional.of(new Table(header, rows));
    }

    private static List<String> cells(String line) {
      String s = line.strip();
      s = s.substring(1, s.lastIndexOf('|'));
      List<String> out = new ArrayList<>();
      for (String c : s.split("\\|", -1)) {
        out.add(c.strip());
      }
      return out;
    }
  }

  /** A Markdown table: its header and rows of cells. */
  public record Table(List<String> header, List<List<String>> rows) {
    public Table {
      header = List.copyOf(header);
      rows = rows.stream().map(List::copyOf).toList();
    }

    /** The row whose first cell is {@code key}. */
    public Optional<List<String>> row(String key) {
      return rows.stream().filter(r -> !r.isEmpty() && r.get(0).equals(key)).findFirst();
    }

    /** The index of the {@code occurrence}-th (0-based) column whose header starts with {@code name}. */
    public int column(String name, int occurrence) {
      int seen = 0;
      for (int i = 0; i < header.size(); i++) {
        if (header.get(i).startsWith(name) && seen++ == occurrence) {
          return i;
        }
      }
      throw new IllegalArgumentException("no column '" + name + "' (#" + (occurrence + 1) + ") in " + header);
    }

    /** A cell as a number: the first number in it ("−10 %" → -10, "1,191.8" → 1191.8). */
    public static double number(String cell) {
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("[-−+]?[0-9][0-9,]*(?:\\.[0-9]+)?").matcher(cell);
      if (!m.find()) {
        throw new IllegalArgumentException("no number in '" + cell + "'");
      }
      return Double.parseDouble(m.group().replace("−", "-").replace(",", ""));
    }
  }

  /** The passed run of {@code bench#method}, if recorded. */
  public Optional<Section> section(String bench, String method) {
    if (dir == null) {
      return Optional.empty();
    }
    Path file = dir.resolve(bench + ".txt");
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
    String marker = "== " + method + "\n";
    int start = text.startsWith(marker) ? 0 : text.indexOf("\n" + marker);
    if (start < 0) {
      return Optional.empty();
    }
    start = text.indexOf('\n', start + 1) + 1;
    int end = text.indexOf("\n== ", start);
    String section = end < 0 ? text.substring(start) : text.substring(start, end + 1);
    String command = field(section, "command: ");
    String date = field(section, "date: ");
    String outcome = field(section, "outcome: ");
    if (command == null || date == null || outcome == null || !outcome.startsWith("passed")) {
      return Optional.empty();
    }
    int blank = section.indexOf("\n\n");
    return Optional.of(new Section(bench, method, file, command, date, blank < 0 ? "" : section.substring(blank + 2)));
  }

  private static String field(String section, String prefix) {
    return section.lines().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length()).strip())
        .findFirst().orElse(null);
  }

  /** Why {@code bench#method} is not available, for a "not measured" row. */
  public String missing(String bench, String method) {
    String where = dir == null ? "no " + FOLDER + "/ folder was found (run the report from the repository)"
        : FOLDER + "/" + bench + ".txt has no passed run of " + method;
    return where + "; record it with: mvn -q -pl <module> -am test -Dbench -Dtest='" + bench + "#" + method
        + "' -Dsurefire.failIfNoSpecifiedTests=false";
  }
}
