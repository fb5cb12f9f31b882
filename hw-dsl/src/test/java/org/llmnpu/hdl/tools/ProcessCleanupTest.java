package org.llmnpu.hdl.tools;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A tool run (with a process it started in turn) and a temporary directory do not outlive
 * the JVM when it gets SIGINT or SIGTERM.
 */
public class ProcessCleanupTest {
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
   */
  public static void assertSignalCleansUp(Class<?> mainClass, String signal, Path tmp) throws Exception {
    Path pidFile = tmp.resolve("grandchild.pid");
    Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), mainClass.getName(), pidFile.toString())
        .redirectErrorStream(true).start();
    BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine();
    assertTrue(line != null && line.startsWith("dir "), String.valueOf(line));
    Path dir = Path.of(line.substring(4));
    for (int i = 0; i < 200 && !(Files.exists(pidFile) && Files.size(pidFile) > 0); i++) {
      Thread.sleep(50);
    }
    long grandchild = Long.parseLong(Files.readString(pidFile).strip());
    assertTrue(ProcessHandle.of(grandchild).isPresent(), "the tool's own child runs");
    new ProcessBuilder("kill", "-" + signal, Long.toString(child.pid())).start().waitFor();
    assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the JVM ended");
    for (int i = 0; i < 100 && ProcessHandle.of(grandchild).map(ProcessHandle::isAlive).orElse(false); i++) {
      Thread.sleep(50);
    }
    assertFalse(ProcessHandle.of(grandchild).map(ProcessHandle::isAlive).orElse(false),
        "the tool's child was killed with the JVM");
    assertFalse(Files.exists(dir), "the temporary directory was deleted");
  }
}
