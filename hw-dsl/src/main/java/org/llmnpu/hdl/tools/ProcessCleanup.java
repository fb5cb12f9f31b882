package org.llmnpu.hdl.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * What the toolkit started or created and must not outlive it: running tool processes
 * (Yosys, OpenSTA, Verilator's make and compilers, with all their descendants) and temporary
 * working directories. When the JVM ends — normally, by SIGINT (Ctrl-C) or by SIGTERM — a
 * shutdown hook kills the process trees first (and any other descendant of the JVM), then
 * deletes the directories. (SIGKILL runs
 * no hook; the build cache then removes abandoned builds itself.)
 */
public final class ProcessCleanup {
  private static final Set<Process> PROCESSES = ConcurrentHashMap.newKeySet();
  private static final Set<Path> DIRECTORIES = ConcurrentHashMap.newKeySet();
  private static volatile boolean shuttingDown;

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(ProcessCleanup::cleanUp, "llmnpu-cleanup"));
  }

  private ProcessCleanup() {
  }

  /** Tracks a started process until {@link #forget(Process)}. */
  public static void track(Process p) {
    PROCESSES.add(p);
  }

  public static void forget(Process p) {
    PROCESSES.remove(p);
  }

  /** A new temporary directory, deleted at JVM exit unless {@link #delete(Path)} came first. */
  public static Path tempDirectory(String prefix) throws IOException {
    Path d = Files.createTempDirectory(prefix);
    DIRECTORIES.add(d);
    return d;
  }

  /** Deletes a directory made by {@link #tempDirectory} (best effort) and stops tracking it. */
  public static void delete(Path dir) {
    if (dir == null) {
      return;
    }
    deleteTree(dir);
    DIRECTORIES.remove(dir);
  }

  /** Stops tracking a directory made by {@link #tempDirectory} and keeps it (e.g. for inspection). */
  public static void keep(Path dir) {
    if (dir != null && !shuttingDown) { // a run failing because the hook killed its tool is not kept
      DIRECTORIES.remove(dir);
    }
  }

  /** Kills {@code p} and every process it started, children first. */
  public static void killTree(Process p) {
    List<ProcessHandle> tree = p.descendants().toList();
    for (ProcessHandle h : tree) {
      h.destroyForcibly();
    }
    p.destroyForcibly();
    try {
      p.onExit().get(5, java.util.concurrent.TimeUnit.SECONDS);
    } catch (Exception e) {
      // it was killed; the operating system reaps it
    }
  }

  private static void cleanUp() {
    shuttingDown = true;
    for (Process p : List.copyOf(PROCESSES)) {
      killTree(p);
    }
    // also what was started but not yet tracked when the signal came: everything below this JVM
    ProcessHandle.current().descendants().forEach(ProcessHandle::destroyForcibly);
    for (Path d : List.copyOf(DIRECTORIES)) {
      deleteTree(d);
    }
  }

  private static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort
    }
  }
}
