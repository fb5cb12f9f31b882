package org.llmnpu.verilator.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.examples.MacArrayExample;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.verilator.SimOptions;
import org.llmnpu.verilator.Simulators;

/**
 * Build time (cold and cached) and simulation speed of an 8x8 MAC PE array (3,072
 * flip-flops) in three driving styles, locally and in a container. Not part of the default
 * test run:
 * {@code mvn -q -pl verilator-harness -am test -Dbench -Dtest=HarnessBenchmark -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class HarnessBenchmark {
  private static final int RAW = 200_000;
  private static final int BATCHED = 50_000;
  private static final int ROUND_TRIP = 5_000;

  @Test
  void figures() throws Exception {
    VerilogDesign design = Verilog.emit(new MacArrayExample(new MacArrayExample.Config(8, 8)));
    for (SimOptions.Mode mode : new SimOptions.Mode[] {SimOptions.Mode.LOCAL, SimOptions.Mode.CONTAINER}) {
      Path cache = Files.createTempDirectory("bench-cache");
      SimOptions o = SimOptions.fromEnvironment().withMode(mode);
      o = new SimOptions(mode, o.waves(), o.timeout(), cache, o.image(), cache.resolve("runs"));
      long t0 = System.nanoTime();
      try (Simulator s = Simulators.start(design, o)) {
        s.step(1);
        s.peek("psums_0");
      }
      double cold = seconds(t0);
      t0 = System.nanoTime();
      double raw;
      double batched;
      double roundTrip;
      try (Simulator s = Simulators.start(design, o)) {
        s.peek("psums_0");
        double cached = seconds(t0);
        long t = System.nanoTime();
        s.step(RAW);
        s.peek("psums_0");
        raw = RAW / seconds(t);
        Random rnd = new Random(1);
        t = System.nanoTime();
        for (int i = 0; i < BATCHED; i++) {
          for (int r = 0; r < 8; r++) {
            s.poke("acts_" + r, rnd.nextInt(256) - 128);
          }
          s.step(1);
        }
        s.peek("psums_0");
        batched = BATCHED / seconds(t);
        t = System.nanoTime();
        for (int i = 0; i < ROUND_TRIP; i++) {
          for (int r = 0; r < 8; r++) {
            s.poke("acts_" + r, rnd.nextInt(256) - 128);
          }
          s.step(1);
          s.peek("psums_7");
        }
        roundTrip = ROUND_TRIP / seconds(t);
        System.out.printf("%-9s build cold %6.1f s, start cached %5.2f s | cycles/s: raw C++ loop %,10.0f, "
            + "batched %,9.0f, round trip per cycle %,8.0f (ratios %.1f : %.1f : 1)%n", mode, cold, cached, raw,
            batched, roundTrip, raw / roundTrip, batched / roundTrip);
      }
    }
  }

  private static double seconds(long start) {
    return (System.nanoTime() - start) / 1e9;
  }
}
