package org.llmnpu.hdl.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.BeforeTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Records what a benchmark prints, so that a figure quoted in a README is the benchmark's last
 * recorded output and not a retyped number.
 *
 * <p>A benchmark class opts in with {@code @ExtendWith(BenchRecord.class)}. When the run is a
 * benchmark run ({@code -Dbench} on the Maven command line, which also lifts the default
 * exclusion of {@code **}{@code /bench/**}), everything the test method prints on
 * {@code System.out} is still printed and is also kept; when the method ends, its section of
 * {@code bench-results/<BenchName>.txt} at the repository root is replaced by the output, the
 * command that reproduces it, the UTC date, the wall time and the outcome. Sections of methods
 * not run this time are kept, so running one method of a benchmark does not erase the others, and a
 * failed run does not replace the figures of a passed one (the section then names the failure).
 * The file is written to a temporary file and moved into place, so a reader never sees half a
 * record. Without {@code -Dbench} the extension does nothing: the default {@code mvn test}
 * writes no file.
 *
 * <p>Benchmarks that are plain {@code main} programs call {@link #write} directly.
 */
public final class BenchRecord implements BeforeTestExecutionCallback, AfterTestExecutionCallback {

  /** Folder at the repository root that holds one recorded file per benchmark. */
  public static final String FOLDER = "bench-results";

  private static final String SECTION = "== ";
  private static final String LAST_FAILURE = "last failed run (figures below are from the passed run): ";
  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(BenchRecord.class);

  /** True when this JVM runs benchmarks ({@code -Dbench}, passed on to the test JVM by Surefire). */
  public static boolean enabled() {
    return System.getProperty("bench") != null;
  }

  @Override
  public void beforeTestExecution(ExtensionContext context) {
    if (!enabled()) {
      return;
    }
    ByteArrayOutputStream kept = new ByteArrayOutputStream();
    PrintStream original = System.out;
    PrintStream tee = new PrintStream(new Tee(original, kept), true, StandardCharsets.UTF_8);
    System.setOut(tee);
    context.getStore(NAMESPACE).put("capture", new Capture(original, kept, System.nanoTime()));
  }

  @Override
  public void afterTestExecution(ExtensionContext context) {
    Capture capture = context.getStore(NAMESPACE).remove("capture", Capture.class);
    if (capture == null) {
      return;
    }
    System.out.flush();
    System.setOut(capture.original());
    Duration wall = Duration.ofNanos(System.nanoTime() - capture.startNanos());
    Class<?> bench = context.getRequiredTestClass();
    String method = context.getRequiredTestMethod().getName();
    Optional<Throwable> failure = context.getExecutionException();
    String outcome = failure.map(t -> "failed: " + t.toString().lines().findFirst().orElse("")).orElse("passed");
    write(bench.getSimpleName(), method, command(bench, method), wall, outcome,
        capture.kept().toString(StandardCharsets.UTF_8));
  }

  /**
   * Replaces the section {@code section} of {@code bench-results/<benchName>.txt} with the given
   * output; for benchmarks run as {@code main} programs. Does nothing without {@code -Dbench}.
   */
  public static void write(String benchName, String section, String command, Duration wall, String outcome,
                           String output) {
    if (!enabled()) {
      return;
    }
    Path file = repoRoot().resolve(FOLDER).resolve(benchName + ".txt");
    try {
      Map<String, String> sections = Files.exists(file) ? sections(Files.readString(file)) : new LinkedHashMap<>();
      String date = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
      StringBuilder body = new StringBuilder();
      body.append("command: ").append(command).append('\n');
      body.append("date: ").append(date).append('\n');
      body.append(String.format(Locale.ROOT, "wall time: %.1f s on %d cores%n", wall.toMillis() / 1000.0,
          Runtime.getRuntime().availableProcessors()));
      body.append("outcome: ").append(outcome).append('\n');
      body.append('\n').append(output.strip()).append('\n');
      String previous = sections.get(section);
      boolean passed = outcome.startsWith("passed");
      if (!passed && previous != null && previous.contains("\noutcome: passed\n")) {
        // a failed run (a missing tool, an interrupted run) keeps the last passed figures and says so
        String kept = previous.lines().filter(l -> !l.startsWith(LAST_FAILURE)).reduce("", (a, l) -> a + l + "\n");
        int end = kept.indexOf("\n\n");
        sections.put(section, kept.substring(0, end + 1) + LAST_FAILURE + date + ", " + outcome + "\n"
            + kept.substring(end + 1));
      } else {
        sections.put(section, body.toString());
      }
      writeAtomically(file, render(benchName, sections));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot record benchmark output in " + file, e);
    }
  }

  /** The Maven command that reruns one method of a benchmark class, from the module it runs in. */
  static String command(Class<?> bench, String method) {
    String module = Path.of(System.getProperty("user.dir")).toAbsolutePath().getFileName().toString();
    return "mvn -q -pl " + module + " -am test -Dbench -Dtest='" + bench.getSimpleName() + "#" + method
        + "' -Dsurefire.failIfNoSpecifiedTests=false";
  }

  /** The repository root: Surefire's {@code llmnpu.repoRoot}, else the first parent holding {@code scripts/test.sh}. */
  public static Path repoRoot() {
    String configured = System.getProperty("llmnpu.repoRoot");
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured).toAbsolutePath();
    }
    for (Path p = Path.of(System.getProperty("user.dir")).toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.exists(p.resolve("scripts").resolve("test.sh"))) {
        return p;
      }
    }
    throw new IllegalStateException("cannot find the repository root (no scripts/test.sh above "
        + System.getProperty("user.dir") + "); set -Dllmnpu.repoRoot");
  }

  static Map<String, String> sections(String text) {
    Map<String, String> sections = new LinkedHashMap<>();
    String name = null;
    StringBuilder body = new StringBuilder();
    for (String line : text.split("\n", -1)) {
      if (line.startsWith(SECTION)) {
        if (name != null) {
          sections.put(name, body.toString().stripTrailing() + "\n");
        }
        name = line.substring(SECTION.length()).strip();
        body.setLength(0);
      } else if (name != null) {
        body.append(line).append('\n');
      }
    }
    if (name != null) {
      sections.put(name, body.toString().stripTrailing() + "\n");
    }
    return sections;
  }

  static String render(String benchName, Map<String, String> sections) {
    StringBuilder text = new StringBuilder();
    text.append("# ").append(benchName).append(": recorded benchmark output, one section per benchmark method.\n");
    text.append("# Written by org.llmnpu.hdl.bench.BenchRecord when the benchmark runs with -Dbench; do not edit.\n");
    List<String> names = new ArrayList<>(sections.keySet());
    for (String name : names) {
      text.append('\n').append(SECTION).append(name).append('\n').append(sections.get(name));
    }
    return text.toString();
  }

  private static void writeAtomically(Path file, String text) throws IOException {
    Files.createDirectories(file.getParent());
    // a fresh name beside the target (same file system, so the move is atomic) created with the umask's permissions
    Path tmp = file.resolveSibling(file.getFileName() + "." + ProcessHandle.current().pid() + "." + System.nanoTime()
        + ".tmp");
    try {
      Files.writeString(tmp, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  private record Capture(PrintStream original, ByteArrayOutputStream kept, long startNanos) {
  }

  /** Writes every byte to both streams. */
  private static final class Tee extends OutputStream {
    private final OutputStream first;
    private final OutputStream second;

    Tee(OutputStream first, OutputStream second) {
      this.first = first;
      this.second = second;
    }

    @Override
    public synchronized void write(int b) throws IOException {
      first.write(b);
      second.write(b);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws IOException {
      first.write(b, off, len);
      second.write(b, off, len);
    }

    @Override
    public synchronized void flush() throws IOException {
      first.flush();
      second.flush();
    }
  }
}
