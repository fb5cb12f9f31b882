package org.llmnpu.cli.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class PpaCommandTest {
  @TempDir
  Path tmp;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    System.setProperty("llmnpu.ppa.cache", tmp.resolve("cache").toString());
    return new CommandLine(new ReportCommand()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
        .execute(args);
  }

  private void assertRejected(int code, String... mustContain) {
    assertEquals(2, code, err.toString());
    String message = err.toString().strip();
    assertEquals(1, message.lines().count(), "one line: " + message);
    for (String s : mustContain) {
      assertTrue(message.contains(s), message + " should contain " + s);
    }
    assertFalse(Files.exists(tmp.resolve("out")), "no report is written for bad input");
  }

  @Test
  void unknownBlockIsRejectedListingTheBlocks() {
    assertRejected(run("ppa", "no_such_block", "-o", tmp.resolve("out").toString()), "unknown block 'no_such_block'",
        "fifo");
  }

  @Test
  void badParameterValueNamesTheParameterAndAllowedValues() {
    assertRejected(run("ppa", "fifo", "-p", "depth=3", "-o", tmp.resolve("out").toString()), "'depth'", "allowed");
  }

  @Test
  void badSweepValueIsRejectedBeforeAnyToolRuns() {
    assertRejected(run("ppa", "fifo", "--sweep", "depth=16,17", "-o", tmp.resolve("out").toString()), "'depth'",
        "17");
    assertFalse(Files.exists(tmp.resolve("cache")), "no tool ran");
  }

  @Test
  void nonPositiveClockIsRejectedNamingTheOption() {
    assertRejected(run("ppa", "fifo", "--clock-ns", "-1", "-o", tmp.resolve("out").toString()), "--clock-ns",
        "decimal number in 0.1..1000");
  }

  @Test
  void clockOutsideTheRangeOrNotPlainDecimalIsRejectedBeforeAnyToolRuns() {
    for (String bad : new String[] {"1e9", "1e-6", "0x1p3", "5d", "5000", "0.01", "NaN", "Infinity", "0"}) {
      out.getBuffer().setLength(0);
      err.getBuffer().setLength(0);
      assertRejected(run("ppa", "fifo", "--clock-ns", bad, "-o", tmp.resolve("out").toString()), "--clock-ns",
          "allowed: a decimal number in 0.1..1000");
    }
    assertFalse(Files.exists(tmp.resolve("cache")), "no tool ran");
  }

  @Test
  void activityVcdErrorsAreUsageErrorsBeforeAnyToolRuns() throws Exception {
    assertRejected(run("ppa", "fifo", "--activity-vcd", tmp.resolve("none.vcd").toString(), "-o",
        tmp.resolve("out").toString()), "--activity-vcd", "no such file");
    err.getBuffer().setLength(0);
    Path vcd = Files.writeString(tmp.resolve("run.vcd"), "$scope module TOP $end $var wire 1 ! clk $end $upscope $end "
        + "$enddefinitions $end\n#0\n0!\n#1\n1!\n");
    assertRejected(run("ppa", "fifo", "--sweep", "depth=4,8", "--activity-vcd", vcd.toString(), "-o",
        tmp.resolve("out").toString()), "--activity-vcd", "--sweep");
    assertFalse(Files.exists(tmp.resolve("cache")), "no tool ran");
  }

  @Test
  void aGateDutyOutOfRangeOrOfNoGateIsAUsageError() {
    assertRejected(run("ppa", "fifo", "--gate-duty", "gemmEngine=1.5", "-o", tmp.resolve("out").toString()),
        "--gate-duty gemmEngine", "0..1");
    assertFalse(Files.exists(tmp.resolve("cache")), "no tool ran");
    requireTools();
    err.getBuffer().setLength(0);
    assertRejected(run("ppa", "fifo", "--gate-duty", "gemmEngine=0.5", "-o", tmp.resolve("out").toString()),
        "--gate-duty: 'gemmEngine' is not a clock gate", "gates: none");
  }

  @Test
  void repeatedParameterIsRejected() {
    assertRejected(run("ppa", "fifo", "-p", "width=4", "-p", "width=16", "-o", tmp.resolve("out").toString()),
        "'width' is given twice");
  }

  @Test
  void outputThatWouldLoseFilesIsRefusedBeforeAnyToolRunsAndNothingIsTouched() throws Exception {
    Path file = Files.writeString(tmp.resolve("notes.txt"), "mine");
    Path dir = Files.createDirectories(tmp.resolve("project"));
    Files.writeString(dir.resolve("Main.java"), "class Main {}");
    String[][] cases = {{""}, {"  "}, {file.toString()}, {dir.toString()}, {"."}};
    for (String[] c : cases) {
      err.getBuffer().setLength(0);
      int code = run("ppa", "fifo", "-o", c[0]);
      assertEquals(2, code, err.toString());
      assertTrue(err.toString().contains("-o"), err.toString());
    }
    assertEquals("mine", Files.readString(file));
    assertEquals("class Main {}", Files.readString(dir.resolve("Main.java")));
    assertFalse(Files.exists(tmp.resolve("cache")), "no tool ran");
  }

  @Test
  void nonNumericClockIsRejectedNamingTheOption() {
    assertRejected(run("ppa", "fifo", "--clock-ns", "fast", "-o", tmp.resolve("out").toString()), "--clock-ns",
        "number");
  }

  @Test
  void sweepOfFifoDepthWritesAReportWhoseAreaGrowsWithDepth() throws Exception {
    requireTools();
    int code = run("ppa", "fifo", "-p", "width=8", "--sweep", "depth=4,16,64", "--clock-ns", "4",
        "-o", tmp.resolve("out").toString());
    assertEquals(0, code, err.toString());
    for (String f : new String[] {"index.html", "ppa.json", "ppa.csv"}) {
      assertTrue(Files.size(tmp.resolve("out").resolve(f)) > 0, f);
    }
    JsonNode points = new ObjectMapper().readTree(tmp.resolve("out/ppa.json").toFile()).get("points");
    assertEquals(3, points.size());
    double previousTotal = 0;
    for (JsonNode p : points) {
      double total = p.get("nodes").get(0).get("totalAreaUm2").asDouble();
      assertTrue(total > previousTotal, "total area grows with depth");
      assertTrue(p.get("timing").get("fmaxMhz").asDouble() > 0);
      previousTotal = total;
    }
    assertTrue(out.toString().contains("depth=64"), out.toString());
  }

  /**
   * The PPA cache the tests of every module share, {@code target/ppa-test-cache} at the reactor's root (the same
   * place as reports' {@code TestDesigns.ppaCache}), so a synthesis made by an earlier module's tests is reused.
   */
  static Path sharedPpaCache() {
    String root = System.getProperty("llmnpu.repoRoot");
    return (root == null || root.isBlank() ? Path.of("") : Path.of(root)).toAbsolutePath()
        .resolve(Path.of("target", "ppa-test-cache"));
  }

  static void requireTools() {
    for (String exe : new String[] {"yosys", "sta"}) {
      boolean found = false;
      for (String dir : System.getenv("PATH").split(File.pathSeparator)) {
        found |= Files.isExecutable(Path.of(dir, exe));
      }
      if (!found && "true".equalsIgnoreCase(System.getenv("CI"))) {
        fail("CI=true and " + exe + " is missing: run scripts/setup-tools.sh");
      }
      Assumptions.assumeTrue(found, "skipped: " + exe + " missing; run scripts/setup-tools.sh");
    }
  }
}
