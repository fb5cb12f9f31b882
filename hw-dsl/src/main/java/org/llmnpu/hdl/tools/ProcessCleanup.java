package org.llmnpu.hdl.tools;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * What the toolkit started or created and must not outlive it: running tool processes
 * (Yosys, OpenSTA, Verilator's make and compilers, with all their descendants) and temporary
 * working directories. When the JVM ends — normally, by SIGINT (Ctrl-C) or by SIGTERM — a
 * shutdown hook kills the process trees first (and any other descendant of the JVM), waits until
 * they have exited, then deletes the directories. (SIGKILL runs no hook; the build cache then
 * removes abandoned builds itself.)
 *
 * <p>The hook runs while the program's own threads go on: a thread whose tool was just killed
 * returns and deletes its own directories at the same moment, or retries and starts another tool.
 * So a directory deleted by both sides is not an error of either, one directory the hook cannot
 * delete does not stop it deleting the others, and once the hook has begun no new directory is
 * handed out and a process tracked after that moment is killed at once.
 */
public final class ProcessCleanup {
  private static final Registry REGISTRY = new Registry(true);

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(REGISTRY::cleanUp, "llmnpu-cleanup"));
  }

  private ProcessCleanup() {
  }

  /** Tracks a started process until {@link #forget(Process)}; during the JVM's shutdown, kills it instead. */
  public static void track(Process p) {
    REGISTRY.track(p);
  }

  public static void forget(Process p) {
    REGISTRY.forget(p);
  }

  /**
   * A new temporary directory, deleted at JVM exit unless {@link #delete(Path)} came first.
   *
   * @throws IllegalStateException once the JVM is shutting down
   */
  public static Path tempDirectory(String prefix) throws IOException {
    return REGISTRY.tempDirectory(prefix);
  }

  /** Deletes a directory made by {@link #tempDirectory} (best effort) and stops tracking it. */
  public static void delete(Path dir) {
    REGISTRY.delete(dir);
  }

  /** Stops tracking a directory made by {@link #tempDirectory} and keeps it (e.g. for inspection). */
  public static void keep(Path dir) {
    REGISTRY.keep(dir);
  }

  /** Kills {@code p} and every process it started, children first, and waits (at most 5 s) for {@code p}. */
  public static void killTree(Process p) {
    List<ProcessHandle> tree = p.descendants().toList();
    for (ProcessHandle h : tree) {
      h.destroyForcibly();
    }
    p.destroyForcibly();
    try {
      p.onExit().get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      // it was killed; the operating system reaps it
    }
  }

  /**
   * Deletes {@code dir} and everything below it, best effort: entries that vanish meanwhile (another
   * thread deleting the same tree) are skipped, and an entry that cannot be deleted leaves its
   * parents in place without stopping the rest.
   *
   * @return whether {@code dir} is gone
   */
  static boolean deleteTree(Path dir) {
    try {
      Files.walkFileTree(dir, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
          file.toFile().delete();
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) {
          return FileVisitResult.CONTINUE; // vanished or unreadable: what remains stays
        }

        @Override
        public FileVisitResult postVisitDirectory(Path d, IOException e) {
          d.toFile().delete();
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (NoSuchFileException e) {
      return true;
    } catch (IOException | UncheckedIOException e) {
      // best effort: reported through the return value
    }
    return !Files.exists(dir);
  }

  /**
   * The tracked processes and directories, and their clean-up; one instance serves the JVM (the
   * shutdown hook), tests make their own.
   */
  static final class Registry {
    /** Total wait for the killed processes to exit before their directories are deleted. */
    private static final long EXIT_WAIT_MILLIS = 5_000;

    private final Set<Process> processes = new HashSet<>();
    private final Set<Path> directories = new HashSet<>();
    private final boolean allDescendants;
    private boolean shuttingDown;

    /** {@code allDescendants}: the clean-up also kills every descendant of this JVM, tracked or not. */
    Registry(boolean allDescendants) {
      this.allDescendants = allDescendants;
    }

    void track(Process p) {
      synchronized (this) {
        if (!shuttingDown) {
          processes.add(p);
          return;
        }
      }
      killTree(p);
    }

    synchronized void forget(Process p) {
      processes.remove(p);
    }

    Path tempDirectory(String prefix) throws IOException {
      synchronized (this) {
        if (!shuttingDown) {
          Path d = Files.createTempDirectory(prefix);
          directories.add(d);
          return d;
        }
      }
      throw new IllegalStateException("the JVM is shutting down: no new temporary directory " + prefix + "*");
    }

    void delete(Path dir) {
      if (dir == null) {
        return;
      }
      deleteTree(dir);
      synchronized (this) {
        directories.remove(dir);
      }
    }

    synchronized void keep(Path dir) {
      if (dir != null && !shuttingDown) { // a run failing because the hook killed its tool is not kept
        directories.remove(dir);
      }
    }

    /**
     * Kills every tracked process tree (and with {@code allDescendants} every other descendant of
     * this JVM), waits for them to exit, then deletes every tracked directory; a directory that is
     * not gone after the first pass (a thread of the program still wrote into it) gets a second.
     * Returns the directories it could not delete.
     */
    List<Path> cleanUp() {
      List<Process> running;
      List<Path> created;
      synchronized (this) {
        shuttingDown = true;
        running = List.copyOf(processes);
        created = List.copyOf(directories);
      }
      List<CompletableFuture<?>> exits = new ArrayList<>();
      for (Process p : running) {
        p.descendants().forEach(h -> exits.add(kill(h)));
        exits.add(kill(p.toHandle()));
      }
      if (allDescendants) { // also what was started but not yet tracked when the hook began
        ProcessHandle.current().descendants().forEach(h -> exits.add(kill(h)));
      }
      awaitExits(exits);
      List<Path> left = new ArrayList<>(created);
      for (int pass = 0; pass < 2 && !left.isEmpty(); pass++) {
        left.removeIf(ProcessCleanup::deleteTree);
      }
      return left;
    }

    private static CompletableFuture<ProcessHandle> kill(ProcessHandle h) {
      h.destroyForcibly();
      return h.onExit();
    }

    /** Until every killed process has exited, so none still writes into a directory being deleted. */
    private static void awaitExits(List<CompletableFuture<?>> exits) {
      try {
        CompletableFuture.allOf(exits.toArray(CompletableFuture[]::new)).get(EXIT_WAIT_MILLIS, TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        // a process that does not die within the wait: delete what can be deleted anyway
      }
    }
  }
}
