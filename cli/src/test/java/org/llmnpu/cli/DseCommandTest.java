package org.llmnpu.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code npu dse}: bad files and options exit with 2 naming the key and the allowed values (no point runs). */
class DseCommandTest {
  @TempDir Path dir;

  private String sweep(String parameters) throws Exception {
    Path f = dir.resolve("s.yaml");
    Files.writeString(f, "model: stories260K\nworkload: {promptLen: 16}\nbase: {config: "
        + Path.of("../flow/examples/tiny-npu.yaml").toAbsolutePath().normalize() + "}\nparameters: " + parameters
        + "\n");
    return f.toString();
  }

  @Test
  void badSweepFilesAndOptionsExitWithTwo() throws Exception {
    String out = dir.resolve("o").toString();
    String err = CliRun.capture(false, 2, "dse", sweep("{rows: [4, 6]}"), "-o", out);
    assertTrue(err.contains("parameters.rows: '6' is not allowed; allowed:"), err);
    err = CliRun.capture(false, 2, "dse", sweep("{rows: [4]}"), "--executor", "cloud", "-o", out);
    assertTrue(err.contains("--executor: 'cloud' is not allowed; allowed: local, slurm"), err);
    err = CliRun.capture(false, 2, "dse", sweep("{rows: [4]}"), "--max-attempts", "0", "-o", out);
    assertTrue(err.contains("--max-attempts: must be at least 1, got 0"), err);
    err = CliRun.capture(false, 2, "dse", dir.resolve("missing.yaml").toString(), "-o", out);
    assertTrue(err.contains("missing.yaml does not exist"), err);
    err = CliRun.capture(false, 2, "dse", sweep("{rows: [4]}"), "-o", dir.resolve("s.yaml").toString());
    assertTrue(err.contains("-o: " + dir.resolve("s.yaml") + " is a file"), err);
  }
}
