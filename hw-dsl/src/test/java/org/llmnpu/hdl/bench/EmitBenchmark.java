package org.llmnpu.hdl.bench;

import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.examples.MacArrayExample;

/**
 * Elaboration + emission time of N x N arrays of 8x8->32-bit MAC PEs, to show the emitter
 * is linear in design size. Run after {@code mvn -q -pl hw-dsl test-compile}:
 * {@code java -cp hw-dsl/target/classes:hw-dsl/target/test-classes org.llmnpu.hdl.bench.EmitBenchmark}.
 */
public final class EmitBenchmark {
  private EmitBenchmark() {
  }

  public static void main(String[] args) {
    int[] sizes = {8, 16, 32, 64};
    for (int warm = 0; warm < 2; warm++) {
      Verilog.emit(new MacArrayExample(new MacArrayExample.Config(16, 16)));
    }
    System.out.printf("%-8s %8s %12s %12s %14s%n", "array", "PEs", "time [ms]", "us per PE", "Verilog bytes");
    for (int n : sizes) {
      long best = Long.MAX_VALUE;
      long bytes = 0;
      for (int rep = 0; rep < 3; rep++) {
        long t0 = System.nanoTime();
        VerilogDesign d = Verilog.emit(new MacArrayExample(new MacArrayExample.Config(n, n)));
        best = Math.min(best, System.nanoTime() - t0);
        bytes = d.files().values().stream().mapToLong(String::length).sum();
      }
      System.out.printf("%-8s %8d %12.1f %12.1f %14d%n", n + "x" + n, n * n, best / 1e6, best / 1e3 / (n * n), bytes);
    }
  }
}
