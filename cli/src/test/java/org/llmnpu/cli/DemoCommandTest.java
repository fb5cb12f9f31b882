package org.llmnpu.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code npu demo} only parses and prints: its options, and an unknown option refused before anything runs. The
 * demo itself is tested in {@code cosim} ({@code NpuDemoTest}, {@code BlockTourTest}).
 */
class DemoCommandTest {
  private static int run(StringWriter out, StringWriter err, String... args) {
    return new CommandLine(new DemoCommand()).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
        .execute(args);
  }

  @Test
  void helpListsTheOutputDirectoryAndTheBlockTour() {
    StringWriter out = new StringWriter();
    assertEquals(0, run(out, new StringWriter(), "--help"));
    assertTrue(out.toString().contains("--quick") && out.toString().contains("--out")
        && out.toString().contains("out/demo"), out.toString());
  }

  @Test
  void anUnknownOptionExitsTwoNamingIt() {
    StringWriter err = new StringWriter();
    assertEquals(2, run(new StringWriter(), err, "--bogus"));
    assertTrue(err.toString().contains("--bogus"), err.toString());
  }
}
