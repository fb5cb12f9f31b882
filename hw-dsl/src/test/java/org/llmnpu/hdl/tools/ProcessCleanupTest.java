package org.llmnpu.hdl.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A tool run (with a process it started in turn) and a temporary directory do not outlive the JVM
 * when it gets SIGINT or SIGTERM, however the test runner itself was started; the clean-up is not
 * stopped by the program's own threads deleting, creating or starting things at the same moment.
 */
public class ProcessCleanupTest {
  /** How long a child JVM may take to start its tool, and to end after the signal, on a loaded machine. */
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  /** Child JVM: makes a tracked temporary directory, runs a tool that starts a grandchild. */
  public static void main(String[] args) throws Exception {
    Path dir = ProcessCleanup.tempDirectory("llmnpu-cleanup-test-");
    Path pidFile = Path.of(args[0]);
    System.out.println("dir " + dir);
    System.out.flush();
    ExternalTool.run(List.of("sh", "-c", "sleep 600 & echo $! > " + pidFile + "; wait"), dir, Duration.ofMinutes(10));
  }

  @ParameterizedTest
  @ValueSource(strings = {"TERM", "INT"})
  void signalKillsTheToolTreeAndDeletesTemporaryDirectories(String signal, @TempDir Path tmp) throws Exception {
    assertSignalCleansUp(ProcessCleanupTest.class, signal, tmp);
  }

  /**
   * Starts {@code main} of {@code mainClass} in a child JVM with a pid-file path as argument
   * (it must print {@code dir <path>} and then run a tool that writes its own child's pid
   * there), signals it, and asserts the tool's child and the directory are gone. Shared with
   * other modules' tests.
   *
   * <p>The child starts with SIGINT and SIGTERM at their default disposition ({@code env
   * --default-signal}, GNU coreutils ≥ 8.31): a process started from a shell's background job, or
   * by any parent that ignores SIGINT, inherits it ignored, and a JVM that starts with SIGINT
   * ignored installs no handler for it — the signal would then do nothing, whoever runs the tests.
   */
  public static void assertSignalCleansUp(Class<?> mainClass, String signal, Path tmp) throws Exception {
    Path pidFile = tmp.resolve("grandchild.pid");
    List<String> command = new ArrayList<>(defaultSignalsPrefix());
    command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), mainClass.getName(), pidFile.toString()));
    Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      String line = out.readLine();
      assertTrue(line != null && line.startsWith("dir "), "the child JVM's first line: " + line);
      Path dir = Path.of(line.substring(4));
      long deadline = System.nanoTime() + PATIENCE.toNanos();
      while (!(Files.exists(pidFile) && Files.size(pidFile) > 0) && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertTrue(Files.exists(pidFile) && Files.size(pidFile) > 0, "the tool wrote its child's pid within " + PATIENCE);
      long grandchild = Long.parseLong(Files.readString(pidFile).strip());
      assertTrue(ProcessHandle.of(grandchild).isPresent(), "the tool's own child runs");
      new ProcessBuilder("kill", "-" + signal, Long.toString(child.pid())).start().waitFor();
      assertTrue(child.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS), "the JVM ended on SIG" + signal);
      assertEquals(128 + signalNumber(signal), child.exitValue(), "the JVM's exit status names the signal");
      for (int i = 0; i < 100 && ProcessHandle.of(grandchild).map(ProcessHandle::isAlive).orElse(false); i++) {
        Thread.sleep(50);
      }
      assertFalse(ProcessHandle.of(grandchild).map(ProcessHandle::isAlive).orElse(false),
          "the tool's child was killed with the JVM");
      assertFalse(Files.exists(dir), "the temporary directory was deleted");
    } finally {
      ProcessCleanup.killTree(child);
    }
  }

  /** The command prefix that starts a program with SIGINT and SIGTERM at their default disposition. */
  private static List<String> defaultSignalsPrefix() throws IOException, InterruptedException {
    List<String> prefix = List.of("env", "--default-signal=INT,TERM");
    Process probe = new ProcessBuilder(concat(prefix, List.of("true"))).redirectErrorStream(true).start();
    String said = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertTrue(probe.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS) && probe.exitValue() == 0,
        "this test needs GNU env with --default-signal (coreutils >= 8.31) to reset the child's SIGINT: " + said);
    return prefix;
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  private static int signalNumber(String signal) {
    return switch (signal) {
      case "INT" -> 2;
      case "TERM" -> 15;
      default -> throw new IllegalArgumentException("signal must be INT or TERM, got " + signal);
    };
  }

  /**
   * The race of the shutdown hook with a thread whose tool it just killed: that thread deletes its
   * own files while the hook walks the same directory (here: a thousand files, deleted in random
   * order, so entries the hook has listed vanish before it reads them). The hook must neither fail
   * nor stop: that directory and the next one it tracks are deleted.
   */
  @Test
  void filesDeletedByTheirOwnerDuringTheCleanUpDoNotStopIt() throws Exception {
    for (int round = 0; round < 3; round++) {
      ProcessCleanup.Registry registry = new ProcessCleanup.Registry(false);
      Path shared = registry.tempDirectory("llmnpu-cleanup-race-");
      Path other = registry.tempDirectory("llmnpu-cleanup-other-");
      Files.writeString(other.resolve("f"), "x");
      List<Path> files = new ArrayList<>();
      for (int sub = 0; sub < 10; sub++) {
        Path inner = Files.createDirectories(shared.resolve("d" + sub));
        for (int f = 0; f < 100; f++) {
          files.add(Files.writeString(inner.resolve("f" + f), "x"));
        }
      }
      Collections.shuffle(files, new Random(round));
      CountDownLatch deleting = new CountDownLatch(1);
      CompletableFuture<Void> owner = CompletableFuture.runAsync(() -> {
        for (Path f : files) {
          f.toFile().delete();
          deleting.countDown();
        }
        registry.delete(shared);
      });
      assertTrue(deleting.await(PATIENCE.toSeconds(), TimeUnit.SECONDS));
      List<Path> left = registry.cleanUp();
      owner.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      assertEquals(List.of(), left, "round " + round + ": directories the clean-up could not delete");
      assertFalse(Files.exists(shared), "round " + round + ": the shared directory was deleted");
      assertFalse(Files.exists(other), "round " + round + ": the other directory was deleted");
    }
  }

  @Test
  void onceTheCleanUpBeganNoDirectoryIsHandedOutAndANewProcessIsKilled() throws Exception {
    ProcessCleanup.Registry registry = new ProcessCleanup.Registry(false);
    Path before = registry.tempDirectory("llmnpu-cleanup-late-");
    assertEquals(List.of(), registry.cleanUp());
    assertFalse(Files.exists(before));
    var e = assertThrows(IllegalStateException.class, () -> registry.tempDirectory("llmnpu-cleanup-late-"));
    assertTrue(e.getMessage().contains("shutting down"), e.getMessage());
    Process late = new ProcessBuilder("sleep", "600").start();
    try {
      registry.track(late);
      assertTrue(late.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS), "a process tracked after the clean-up began is killed");
    } finally {
      late.destroyForcibly();
    }
  }

  /** A tool that keeps writing into its directory: it is killed, and has exited, before the directory is deleted. */
  @Test
  void aToolStillWritingIntoItsDirectoryIsStoppedBeforeTheDirectoryIsDeleted() throws Exception {
    ProcessCleanup.Registry registry = new ProcessCleanup.Registry(false);
    Path dir = registry.tempDirectory("llmnpu-cleanup-writer-");
    Process writer = new ProcessBuilder("sh", "-c", "i=0; while :; do i=$((i+1)); mkdir d$i; touch d$i/f; done")
        .directory(dir.toFile()).start();
    registry.track(writer);
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!Files.exists(dir.resolve("d50")) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertTrue(Files.exists(dir.resolve("d50")), "the tool writes into its directory");
    assertEquals(List.of(), registry.cleanUp());
    assertFalse(writer.isAlive());
    assertFalse(Files.exists(dir));
  }

  @Test
  void deletingATreeThatIsAlreadyGoneSucceeds(@TempDir Path tmp) {
    assertTrue(ProcessCleanup.deleteTree(tmp.resolve("never-made")));
  }
}
