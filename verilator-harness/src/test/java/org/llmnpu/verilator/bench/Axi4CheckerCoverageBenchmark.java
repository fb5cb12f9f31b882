package org.llmnpu.verilator.bench;

import java.util.EnumMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.verilator.SimModes;
import org.llmnpu.verilator.axi.Axi4Burst;
import org.llmnpu.verilator.axi.Axi4MasterRuns;
import org.llmnpu.verilator.axi.Axi4MemoryConfig;
import org.llmnpu.verilator.axi.Axi4ProtocolChecker.Rule;
import org.llmnpu.verilator.axi.Axi4TestMaster;

/**
 * Coverage of the AXI4 protocol checker: random runs of the hw-dsl test master against the memory model with
 * random latency, bandwidth, outstanding reads, back-pressure and reordering; each run is checked bit for bit
 * ({@link Axi4MasterRuns#cleanRun}); prints each run and how many times each rule was checked, and the speed
 * of a Java-driven AXI cycle. Not part of the default test run:
 * {@code mvn -q -o -pl hw-dsl,verilator-harness test -Dbench -Dtest=Axi4CheckerCoverageBenchmark -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class Axi4CheckerCoverageBenchmark {
  private static final int RUNS = 20;

  @Test
  void randomRunsWithBackPressure() {
    Map<Rule, Long> total = new EnumMap<>(Rule.class);
    long cycles = 0;
    long start = System.nanoTime();
    Random random = new Random(2026);
    try (Simulator sim = SimModes.startLocal(new Axi4TestMaster())) {
      for (int run = 0; run < RUNS; run++) {
        int beats = 1 << (1 + random.nextInt(6));                  // 2..64, a power of two
        int bursts = 1 + random.nextInt(12);
        long base = (long) beats * 4 * random.nextInt(64);          // bursts aligned: none crosses 4 KiB
        int outstanding = 1 + random.nextInt(8);
        Axi4MemoryConfig config = new Axi4MemoryConfig(1 << 20, 1 + random.nextInt(30), 1 + random.nextInt(10),
            1 + random.nextInt(3), 1 + random.nextInt(8), random.nextDouble() * 0.6, random.nextBoolean(), run);
        Axi4MasterRuns.Run r = Axi4MasterRuns.cleanRun(sim, config, base, beats, bursts, outstanding);
        System.out.printf("run %2d: %2d bursts x %2d beats at 0x%05x, master outstanding %d; memory latency %2d/%2d, "
                + "%d cycles/beat, %d reads max, back-pressure %.2f, reorder %-5s: %6d cycles, %2d bursts reordered%n",
            run, bursts, beats, base, outstanding, config.readLatency(), config.writeLatency(),
            config.cyclesPerBeat(), config.maxOutstandingReads(), config.backPressure(), config.reorder(), r.cycles(),
            r.memory().readsOutOfOrder());
        r.memory().checker().checks().forEach((rule, n) -> total.merge(rule, n, Long::sum));
        cycles += r.cycles();
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.println("rule checks over " + RUNS + " runs (all passed, data bit-exact):");
    total.forEach((rule, n) -> System.out.printf("  %-18s %,10d%n", rule, n));
    System.out.printf("%,d cycles in %.1f s (model build included): %,.0f cycles/s%n", cycles, seconds,
        cycles / seconds);
    System.out.println("(WRAP_UNALIGNED is checked only on WRAP bursts; these runs use INCR, "
        + Axi4Burst.class.getSimpleName() + " type " + Axi4Burst.INCR + ")");
  }
}
