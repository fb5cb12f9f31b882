package org.llmnpu.hdl.bench;

import java.util.function.IntFunction;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.examples.MacArrayExample;

/**
 * Elaboration + emission time of N x N arrays of 8x8->32-bit MAC PEs, to show the emitter
 * is linear in design size (each doubling of N should take 4x the time): the example array
 * with named instances and the same array written with unnamed instances. Each time is the
 * best of 7 after a warm-up at the same size. Run after {@code mvn -q -pl hw-dsl test-compile}:
 * {@code java -cp hw-dsl/target/classes:hw-dsl/target/test-classes:<jackson jars> org.llmnpu.hdl.bench.EmitBenchmark}.
 */
public final class EmitBenchmark {
  private EmitBenchmark() {
  }

  public static void main(String[] args) {
    int[] sizes = {8, 16, 32, 64};
    table("MacArrayExample (named instances)", n -> new MacArrayExample(new MacArrayExample.Config(n, n)), sizes);
    table("UnnamedMacArray (instances named from a field)", UnnamedMacArray::new, sizes);
  }

  private static void table(String title, IntFunction<HwModule> design, int[] sizes) {
    for (int warm = 0; warm < 3; warm++) {
      Verilog.emit(design.apply(32));
    }
    System.out.printf("%n%s%n%-8s %8s %12s %12s %14s %14s%n", title, "array", "PEs", "time [ms]", "us per PE",
        "x previous", "Verilog bytes");
    double previous = 0;
    for (int n : sizes) {
      Verilog.emit(design.apply(n));  // warm-up at this size
      long best = Long.MAX_VALUE;
      long bytes = 0;
      for (int rep = 0; rep < 7; rep++) {
        long t0 = System.nanoTime();
        VerilogDesign d = Verilog.emit(design.apply(n));
        best = Math.min(best, System.nanoTime() - t0);
        bytes = d.files().values().stream().mapToLong(String::length).sum();
      }
      System.out.printf("%-8s %8d %12.1f %12.1f %14s %14d%n", n + "x" + n, n * n, best / 1e6, best / 1e3 / (n * n),
          previous == 0 ? "" : String.format("%.2f", best / previous), bytes);
      previous = best;
    }
  }
}
