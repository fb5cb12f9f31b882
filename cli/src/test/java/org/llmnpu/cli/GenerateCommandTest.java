package org.llmnpu.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GenerateCommandTest {
  @TempDir
  Path dir;

  @Test
  void generateWritesVerilogFilelistAndParams() throws Exception {
    Path out = dir.resolve("fifo");
    assertEquals(0, NpuCommand.execute("generate", "fifo", "-p", "width=8", "-p", "depth=16", "-o", out.toString()));
    assertTrue(Files.exists(out.resolve("SyncFifo_w8_d16.v")));
    assertEquals("SyncFifo_w8_d16.v\n", Files.readString(out.resolve("SyncFifo_w8_d16.f")));
    String params = Files.readString(out.resolve("params.json"));
    assertTrue(params.contains("\"depth\" : 16"), params);
  }

  @Test
  void outOfRangeValueExitsWithTwoNamingTheParameterAndWritesNothing() {
    Path out = dir.resolve("bad");
    String err = runCapturingErr(2, "generate", "fifo", "-p", "depth=15", "-o", out.toString());
    assertTrue(err.contains("'depth'") && err.contains("power of two in 2..65536"), err);
    assertEquals(1, err.strip().lines().count(), err);
    assertFalse(Files.exists(out));
  }

  @Test
  void unknownBlockAndParameterExitWithTwo() {
    String err = runCapturingErr(2, "generate", "fifoo", "-o", dir.resolve("x").toString());
    assertTrue(err.contains("unknown block 'fifoo'") && err.contains("fifo"), err);
    err = runCapturingErr(2, "generate", "fifo", "-p", "size=3", "-o", dir.resolve("x").toString());
    assertTrue(err.contains("unknown parameter 'size'") && err.contains("width, depth"), err);
    assertFalse(Files.exists(dir.resolve("x")));
  }

  @Test
  void configurationRuleBeyondTheRangeIsAlsoAUsageError() {
    String err = runCapturingErr(2, "generate", "regfile", "-p", "width=12", "-o", dir.resolve("r").toString());
    assertTrue(err.contains("width must be a multiple of 8"), err);
  }

  private static String runCapturingErr(int expectedExit, String... args) {
    PrintStream old = System.err;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setErr(new PrintStream(buf, true));
    try {
      assertEquals(expectedExit, NpuCommand.execute(args));
    } finally {
      System.setErr(old);
    }
    return buf.toString();
  }
}
