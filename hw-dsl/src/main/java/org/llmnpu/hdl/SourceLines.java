package org.llmnpu.hdl;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the user's Java source for error messages: the line an error points at, and the name
 * of the variable a line declares. Sources are looked up in the directories of the system
 * property {@code llmnpu.hdl.sourcepath} (path-separated), then next to the compiled classes
 * in a Maven layout ({@code target/classes} → {@code src/main/java}, {@code target/test-classes}
 * → {@code src/test/java}), then under {@code src/main/java} and {@code src/test/java} of the
 * working directory. Nothing here changes the emitted Verilog: names in Verilog never depend
 * on whether a source file is found.
 */
public final class SourceLines {
  /** The variable before the first single {@code =} of a line: {@code UInt sum = wire(...)} gives {@code sum}. */
  private static final Pattern ASSIGNED = Pattern.compile("\\b([A-Za-z_$][\\w$]*)\\s*(?<![=!<>])=(?!=)");
  private static final Map<Path, List<String>> FILES = new ConcurrentHashMap<>();

  private SourceLines() {
  }

  public static Optional<String> line(SourceLocation loc) {
    if (loc.type() == null || loc.line() < 1 || !loc.file().endsWith(".java")) {
      return Optional.empty();
    }
    for (Path root : roots(loc.type())) {
      Path file = root.resolve(packagePath(loc.type())).resolve(loc.file());
      if (Files.isRegularFile(file)) {
        List<String> lines = FILES.computeIfAbsent(file, SourceLines::read);
        return loc.line() <= lines.size() ? Optional.of(lines.get(loc.line() - 1).strip()) : Optional.empty();
      }
    }
    return Optional.empty();
  }

  /** The variable a source line assigns ({@code UInt sum = wire(uint(8));} gives {@code sum}), if any. */
  public static Optional<String> assignedVariable(SourceLocation loc) {
    return line(loc).flatMap(text -> {
      Matcher m = ASSIGNED.matcher(text);
      return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    });
  }

  /** {@code "\n    File.java:42 | <the line>"} when the source is found, else empty. */
  public static String quote(SourceLocation loc) {
    return line(loc).map(text -> "\n    " + loc + " | " + text).orElse("");
  }

  private static List<Path> roots(Class<?> type) {
    List<Path> roots = new ArrayList<>();
    String configured = System.getProperty("llmnpu.hdl.sourcepath");
    if (configured != null) {
      for (String p : configured.split(java.io.File.pathSeparator)) {
        if (!p.isBlank()) {
          roots.add(Path.of(p));
        }
      }
    }
    try {
      var source = type.getProtectionDomain().getCodeSource();
      if (source != null && source.getLocation() != null) {
        Path classes = Path.of(source.getLocation().toURI());
        Path target = classes.getParent();
        if (target != null && target.getParent() != null) {
          String kind = classes.getFileName().toString().equals("test-classes") ? "test" : "main";
          roots.add(target.getParent().resolve("src").resolve(kind).resolve("java"));
        }
      }
    } catch (URISyntaxException | RuntimeException e) {
      // no code source on the file system: only the other roots
    }
    roots.add(Path.of("src", "main", "java"));
    roots.add(Path.of("src", "test", "java"));
    return roots;
  }

  private static String packagePath(Class<?> type) {
    String pkg = type.getPackageName();
    return pkg.isEmpty() ? "" : pkg.replace('.', '/');
  }

  private static List<String> read(Path file) {
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      return List.of();
    }
  }
}
