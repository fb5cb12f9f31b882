package org.llmnpu.reports;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.llmnpu.hdl.emit.VerilogDesign;

/**
 * A directory the toolkit writes its output into (a report, generated Verilog) without ever
 * deleting what it did not write.
 *
 * <ul>
 *   <li>An empty name, or a path that is a file, is refused.</li>
 *   <li>A new or empty directory is used as is. A directory holding files is used only if the
 *       toolkit wrote it before (it holds the list {@value #MARKER}), or with {@code force};
 *       even then only the toolkit's own file names are replaced.</li>
 *   <li>Each file is written to a temporary sibling and renamed over the old one, so a reader
 *       never sees half a file; the list of files written comes last. Files the toolkit wrote
 *       there before for the same kind of output and does not write now are removed.</li>
 *   <li>Files and directories get the permissions the umask gives (no private temporary
 *       files left as 0600).</li>
 * </ul>
 */
public final class OutputDirectory {
  /** The list of files the toolkit wrote into a directory, first line the kind of output. */
  public static final String MARKER = ".llmnpu-files";

  /** A directory that may not be written; the message names the option and what to do. */
  public static final class Refused extends IllegalArgumentException {
    public Refused(String message) {
      super(message);
    }
  }

  private final String kind;
  private final Path dir;
  private final Set<String> previous;
  private final String previousKind;
  private final Set<String> written = new LinkedHashSet<>();

  private OutputDirectory(String kind, Path dir, String previousKind, Set<String> previous) {
    this.kind = kind;
    this.dir = dir;
    this.previousKind = previousKind;
    this.previous = previous;
  }

  /**
   * Checks {@code dir} before anything runs. {@code option} names the command-line option in
   * messages (e.g. {@code -o}).
   *
   * @throws Refused if the directory may not be written
   */
  public static Path check(String option, String dir, boolean force) {
    if (dir == null || dir.isBlank()) {
      throw new Refused(option + ": an empty name is not a directory; name a new or empty directory");
    }
    Path p = Path.of(dir);
    if (Files.exists(p, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(p)) {
      throw new Refused(option + " " + dir + ": is a file, not a directory; name a new or empty directory");
    }
    if (Files.isDirectory(p) && !force && !Files.isRegularFile(p.resolve(MARKER)) && !isEmpty(p)) {
      throw new Refused(option + " " + dir + ": the directory holds files the toolkit did not write; name a new "
          + "or empty directory, or add --force to write into it (only the toolkit's own files are replaced, "
          + "nothing else is deleted)");
    }
    return p;
  }

  /** Opens {@code dir} for writing output of {@code kind} (after {@link #check}). */
  public static OutputDirectory open(String kind, String option, String dir, boolean force) {
    Path p = check(option, dir, force);
    try {
      Files.createDirectories(p);
      Path marker = p.resolve(MARKER);
      String previousKind = null;
      Set<String> previous = new LinkedHashSet<>();
      if (Files.isRegularFile(marker)) {
        List<String> lines = Files.readAllLines(marker, StandardCharsets.UTF_8);
        if (!lines.isEmpty()) {
          previousKind = lines.get(0).strip();
          for (String l : lines.subList(1, lines.size())) {
            if (ownName(l)) {
              previous.add(l);
            }
          }
        }
      }
      return new OutputDirectory(kind, p, previousKind, previous);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the output directory " + p + ": " + e.getMessage(), e);
    }
  }

  public Path path() {
    return dir;
  }

  /** Writes one file (a plain name inside the directory) atomically. */
  public void write(String name, String text) {
    if (!ownName(name)) {
      throw new IllegalArgumentException("output file name '" + name + "' must be a plain file name");
    }
    try {
      writeAtomically(dir.resolve(name), text);
      written.add(name);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + dir.resolve(name) + ": " + e.getMessage(), e);
    }
  }

  /**
   * Records the files written (the list comes last) and removes the files this kind of
   * output wrote there before but not now.
   */
  public void finish() {
    try {
      Set<String> listed = new LinkedHashSet<>(written);
      if (kind.equals(previousKind)) {
        for (String old : previous) {
          if (!written.contains(old)) {
            Files.deleteIfExists(dir.resolve(old));
          }
        }
      } else {
        listed.addAll(previous);
      }
      List<String> lines = new ArrayList<>();
      lines.add(kind);
      lines.addAll(listed);
      writeAtomically(dir.resolve(MARKER), String.join("\n", lines) + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot finish the output in " + dir + ": " + e.getMessage(), e);
    }
  }

  /**
   * Writes text to a file through a temporary sibling created with the umask's permissions,
   * then renames it over the target ({@link VerilogDesign#writeAtomically}).
   */
  public static void writeAtomically(Path file, String text) throws IOException {
    VerilogDesign.writeAtomically(file, text);
  }

  private static boolean ownName(String name) {
    return !name.isBlank() && !name.contains("/") && !name.contains("\\") && !name.equals(".")
        && !name.equals("..") && !name.equals(MARKER);
  }

  private static boolean isEmpty(Path dir) {
    try (var s = Files.list(dir)) {
      return s.findAny().isEmpty();
    } catch (IOException e) {
      return false;
    }
  }
}
