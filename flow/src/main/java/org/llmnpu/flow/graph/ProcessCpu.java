package org.llmnpu.flow.graph;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time (user + system) of this JVM and of the child processes it has waited for (the tools: Yosys, OpenSTA,
 * Verilator's compiler and models), from Linux's {@code /proc/self/stat}; NaN elsewhere. On a shared machine the
 * wall time depends on the load, this does not.
 */
final class ProcessCpu {
  private ProcessCpu() {
  }

  /** Seconds of CPU so far, or NaN when {@code /proc/self/stat} cannot be read. */
  static double seconds() {
    try {
      String stat = Files.readString(Path.of("/proc/self/stat"));
      // the fields after the command's closing parenthesis: state is field 3, utime 14, stime 15, cutime 16, cstime 17
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long ticks = 0;
      for (int i = 11; i <= 14; i++) {
        ticks += Long.parseLong(f[i]);
      }
      return ticks / (double) CLOCK_TICKS;
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  /** {@code sysconf(_SC_CLK_TCK)}: 100 on every Linux configuration Java runs on. */
  private static final int CLOCK_TICKS = 100;
}
