package org.llmnpu.cli.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Bad options of {@code npu report energy} exit 2 with one line, before anything runs. */
class EnergyCommandTest {
  @TempDir
  Path tmp;

  private String rejected(String... args) {
    StringWriter err = new StringWriter();
    int code = new CommandLine(new ReportCommand()).setOut(new PrintWriter(new StringWriter()))
        .setErr(new PrintWriter(err)).execute(args);
    assertEquals(2, code, err.toString());
    assertEquals(1, err.toString().strip().lines().count(), err.toString());
    assertFalse(Files.exists(tmp.resolve("out")));
    return err.toString();
  }

  @Test
  void badOptionsNameTheOptionAndTheAllowedValues() {
    String out = tmp.resolve("out").toString();
    assertTrue(rejected("energy", "--rows", "3", "-o", out).contains("--rows"));
    assertTrue(rejected("energy", "--cols", "0", "-o", out).contains("--cols"));
    assertTrue(rejected("energy", "--lanes", "3", "-o", out).contains("1, 2, 4, 8, 16"));
    assertTrue(rejected("energy", "--clock-ns", "1e3", "-o", out).contains("--clock-ns"));
    assertTrue(rejected("energy", "-o", "").contains("-o"));
    assertTrue(rejected("energy", "-p", "rows=3", "-o", out).contains("rows"));
    assertTrue(rejected("energy", "-p", "nonsense=1", "-o", out).contains("unknown parameter 'nonsense'"));
    assertTrue(rejected("energy", "--config", tmp.resolve("missing.yaml").toString(), "-o", out)
        .contains("missing.yaml"));
  }
}
