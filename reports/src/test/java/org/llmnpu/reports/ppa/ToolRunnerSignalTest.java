package org.llmnpu.reports.ppa;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.llmnpu.hdl.tools.ProcessCleanup;
import org.llmnpu.hdl.tools.ProcessCleanupTest;

/** Ctrl-C or SIGTERM during a synthesis leaves no tool running and no llmnpu-yosys-* folder. */
class ToolRunnerSignalTest {
  /** Child JVM: a work directory as the Yosys run makes it, and a tool with a child of its own. */
  public static void main(String[] args) {
    try {
      Path work = ProcessCleanup.tempDirectory("llmnpu-yosys-");
      System.out.println("dir " + work);
      System.out.flush();
      ToolRunner.run(List.of("sh", "-c", "sleep 600 & echo $! > " + args[0] + "; wait"), work, 600);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"TERM", "INT"})
  void signalDuringAToolRunCleansUp(String signal, @TempDir Path tmp) throws Exception {
    ProcessCleanupTest.assertSignalCleansUp(ToolRunnerSignalTest.class, signal, tmp);
  }
}
