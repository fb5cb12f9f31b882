package org.llmnpu.cosim.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.cosim.demo.NpuDemo;
import org.llmnpu.cosim.report.NpuReportPipeline;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.reports.energy.Calibration;
import org.llmnpu.reports.energy.EnergyAction;
import org.llmnpu.reports.energy.EnergyTable;
import org.llmnpu.verilator.SimOptions;

/**
 * Whether the GEMM engine's per-action energies depend on the array's size (a benchmark, not a test; {@code mvn -q -o
 * -pl cosim -am test -Dbench -Dtest=CalibrationSizeBench -Dsurefire.failIfNoSpecifiedTests=false}): the whole-NPU
 * report's engine calibration ({@link Calibration#gemm}, the workload of {@code NpuEnergyCalibration}: M = K = 4·rows,
 * N = 2·rows) on an 8×8 and on the default NPU's 16×16 engine, at the demo's clock and seed, side by side — the
 * measurement behind calibrating a smaller engine than the NPU's. Point {@code LLMNPU_PPA_CACHE} / {@code LLMNPU_CACHE}
 * at a cache a cold {@code npu demo} filled to reuse its 16×16 runs.
 */
@ExtendWith(BenchRecord.class)
class CalibrationSizeBench {
  /** The per-action entries compared (per MAC, per write-back, per flip-flop); MAC_IDLE is per cycle of the engine. */
  static final List<EnergyAction> PER_ACTION = List.of(EnergyAction.MAC, EnergyAction.MAC_2_4,
      EnergyAction.PSUM_WRITEBACK, EnergyAction.IDLE_FLIP_FLOP);

  @Test
  void gemmEnginePerActionEnergyAt8x8And16x16() {
    NpuReportPipeline.Options o = NpuDemo.defaults();
    SimOptions sim = SimOptions.fromEnvironment();
    int[] sizes = {8, 16};
    EnergyTable[] tables = new EnergyTable[sizes.length];
    for (int i = 0; i < sizes.length; i++) {
      int r = sizes[i];
      long t0 = System.nanoTime();
      tables[i] = new Calibration(o.ppa(), sim, line -> { }).gemm(r, r, 4 * r, 4 * r, 2 * r, o.seed()).table();
      System.out.printf(Locale.ROOT, "%dx%d engine calibrated in %.1f s (cached tool runs are read back)%n", r, r,
          (System.nanoTime() - t0) / 1e9);
    }
    System.out.printf(Locale.ROOT, "clock %s ns, seed %d, OSU 0.18 um (180 nm figures)%n", o.ppa().clockNs(), o.seed());
    System.out.printf(Locale.ROOT, "%-16s %12s %12s %9s%n", "action", "8x8 pJ", "16x16 pJ", "16/8");
    double worst = 0;
    for (EnergyAction a : PER_ACTION) {
      double small = tables[0].entries().get(a).pj180();
      double large = tables[1].entries().get(a).pj180();
      worst = Math.max(worst, Math.abs(large / small - 1));
      System.out.printf(Locale.ROOT, "%-16s %12.4g %12.4g %9.3f%n", a, small, large, large / small);
    }
    double idleSmall = tables[0].entries().get(EnergyAction.MAC_IDLE).pj180();
    double idleLarge = tables[1].entries().get(EnergyAction.MAC_IDLE).pj180();
    System.out.printf(Locale.ROOT, "%-16s %12.4g %12.4g %9.3f  (per engine cycle: grows with the array)%n",
        EnergyAction.MAC_IDLE, idleSmall, idleLarge, idleLarge / idleSmall);
    System.out.printf(Locale.ROOT, "largest per-action difference: %.1f %%%n", 100 * worst);
    assertTrue(idleLarge > idleSmall, "a 16x16 engine idles at more energy per cycle than an 8x8");
  }
}
