package org.llmnpu.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;

/** Runs {@code npu} in-process for the command tests. */
public final class CliRun {
  private CliRun() {
  }

  /** Runs the command, asserts its exit status and returns what it printed on stdout (or stderr). */
  public static String capture(boolean stdout, int expectedExit, String... args) {
    PrintStream old = stdout ? System.out : System.err;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    PrintStream ps = new PrintStream(buf, true);
    if (stdout) {
      System.setOut(ps);
    } else {
      System.setErr(ps);
    }
    try {
      int exit = NpuCommand.execute(args);
      assertEquals(expectedExit, exit, () -> "exit status; output:\n" + buf);
    } finally {
      if (stdout) {
        System.setOut(old);
      } else {
        System.setErr(old);
      }
    }
    return buf.toString();
  }
}
