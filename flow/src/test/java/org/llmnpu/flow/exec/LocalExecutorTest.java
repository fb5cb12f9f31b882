package org.llmnpu.flow.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The local executor's contract: results, retries, skipping finished tasks, failures isolated, progress lines. */
class LocalExecutorTest {
  @TempDir Path dir;

  /** A shell task that writes {@code value} to its result file atomically. */
  private PointTask writes(String id, String value) {
    return new PointTask(id, List.of("sh", "-c",
        "sleep 0.3; echo '{\"v\":" + value + "}' > result.json.tmp && mv result.json.tmp result.json"),
        dir.resolve(id));
  }

  @Test
  void runsEveryTaskRetriesAFlakyOneAndKeepsAFailingOneFromStoppingOthers() throws Exception {
    List<PointTask> tasks = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      tasks.add(writes("p" + i, String.valueOf(i)));
    }
    // fails on its first start (no marker yet), succeeds on the second
    tasks.add(new PointTask("flaky", List.of("sh", "-c",
        "if [ -f tried ]; then echo '{}' > result.json; else touch tried; echo boom >&2; exit 3; fi"),
        dir.resolve("flaky")));
    tasks.add(new PointTask("broken", List.of("sh", "-c", "echo no-result; exit 0"), dir.resolve("broken")));
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    LocalExecutor ex = new LocalExecutor(2, new PrintStream(log, true, StandardCharsets.UTF_8),
        Duration.ofMillis(100));

    List<PointOutcome> out = ex.run(tasks, 2);

    assertEquals(List.of("p0", "p1", "p2", "p3", "flaky", "broken"), out.stream().map(PointOutcome::id).toList());
    for (int i = 0; i < 4; i++) {
      assertTrue(out.get(i).done());
      assertEquals(1, out.get(i).attempts());
      assertEquals("{\"v\":" + i + "}", Files.readString(dir.resolve("p" + i).resolve("result.json")).trim());
    }
    assertTrue(out.get(4).done());
    assertEquals(2, out.get(4).attempts());
    assertTrue(Files.readString(dir.resolve("flaky/stderr.log")).contains("boom"));
    assertEquals(PointOutcome.Status.FAILED, out.get(5).status());
    assertEquals(2, out.get(5).attempts());
    assertTrue(out.get(5).failure().contains("exit code 0 but no result.json"), out.get(5).failure());
    String progress = log.toString(StandardCharsets.UTF_8);
    assertTrue(progress.contains("flaky attempt 1 of 2 failed: exit code 3; stderr ends: boom"), progress);
    assertTrue(progress.matches("(?s).*flow: p\\d running \\d+s \\(attempt 1\\).*"), progress);

    // a rerun starts only the task without a result
    List<PointOutcome> again = ex.run(tasks, 1);
    assertEquals(List.of(0, 0, 0, 0, 0, 1), again.stream().map(PointOutcome::attempts).toList());
  }

  @Test
  void refusesNonsense() {
    org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> new LocalExecutor(0, System.err, Duration.ofSeconds(1)));
    org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> new PointTask("a b", List.of("true"), dir));
    org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> new PointTask("a", List.of(), dir));
  }
}
