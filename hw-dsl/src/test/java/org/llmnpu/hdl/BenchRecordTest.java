package org.llmnpu.hdl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.bench.BenchRecord;

/** The benchmark recorder: one section per method, replaced in place, and silent outside benchmark runs. */
class BenchRecordTest {
  @TempDir
  Path root;
  private String savedBench;
  private String savedRoot;

  @BeforeEach
  void pointAtTempRoot() {
    savedBench = System.getProperty("bench");
    savedRoot = System.getProperty("llmnpu.repoRoot");
    System.setProperty("llmnpu.repoRoot", root.toString());
  }

  @AfterEach
  void restore() {
    restore("bench", savedBench);
    restore("llmnpu.repoRoot", savedRoot);
  }

  private static void restore(String key, String value) {
    if (value == null) {
      System.clearProperty(key);
    } else {
      System.setProperty(key, value);
    }
  }

  @Test
  void rerunningOneMethodReplacesItsSectionAndKeepsTheOthers() throws Exception {
    System.setProperty("bench", "");
    BenchRecord.write("DemoBench", "first", "mvn first", Duration.ofMillis(1500), "passed", "| a | 1 |\n");
    BenchRecord.write("DemoBench", "second", "mvn second", Duration.ofMillis(10), "passed", "second table");
    BenchRecord.write("DemoBench", "first", "mvn first", Duration.ofMillis(20), "passed", "| a | 2 |");

    String text = Files.readString(root.resolve("bench-results/DemoBench.txt"));
    List<String> headers = text.lines().filter(l -> l.startsWith("== ")).toList();
    assertEquals(List.of("== first", "== second"), headers);
    assertTrue(text.contains("| a | 2 |"), text);
    assertFalse(text.contains("| a | 1 |"), text);
    assertTrue(text.contains("second table"), text);
    assertTrue(text.contains("command: mvn second"), text);
    assertTrue(text.lines().anyMatch(l -> l.matches("date: \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC")), text);
    try (var files = Files.list(root.resolve("bench-results"))) {
      assertEquals(1, files.count(), "no temporary file is left behind");
    }
  }

  @Test
  void aFailedRunKeepsTheFiguresOfTheLastPassedRun() throws Exception {
    System.setProperty("bench", "");
    BenchRecord.write("DemoBench", "m", "mvn m", Duration.ofSeconds(3), "passed", "| fmax | 174.1 MHz |");
    BenchRecord.write("DemoBench", "m", "mvn m", Duration.ofSeconds(1), "failed: no Docker engine", "partial");
    BenchRecord.write("DemoBench", "m", "mvn m", Duration.ofSeconds(1), "failed: no OpenSTA", "partial");

    String text = Files.readString(root.resolve("bench-results/DemoBench.txt"));
    assertTrue(text.contains("| fmax | 174.1 MHz |"), text);
    assertTrue(text.contains("outcome: passed"), text);
    assertFalse(text.contains("partial"), text);
    assertEquals(1, text.lines().filter(l -> l.startsWith("last failed run")).count(), text);
    assertTrue(text.contains("failed: no OpenSTA") && !text.contains("no Docker"), text);

    BenchRecord.write("DemoBench", "m", "mvn m", Duration.ofSeconds(1), "passed", "| fmax | 180.0 MHz |");
    String again = Files.readString(root.resolve("bench-results/DemoBench.txt"));
    assertTrue(again.contains("180.0 MHz") && !again.contains("174.1") && !again.contains("last failed run"), again);
  }

  @Test
  void writesNothingOutsideABenchmarkRun() {
    System.clearProperty("bench");
    BenchRecord.write("DemoBench", "first", "mvn first", Duration.ZERO, "passed", "table");
    assertFalse(Files.exists(root.resolve("bench-results")));
  }
}
