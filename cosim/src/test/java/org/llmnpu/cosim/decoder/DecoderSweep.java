package org.llmnpu.cosim.decoder;

import java.io.IOException;
import java.util.List;
import org.llmnpu.isa.Counter;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * The cycle model against the RTL over NPU configurations: stories260K's prefill and decode steps
 * on each configuration's RTL (Verilator) beside the golden ISA simulator, whose {@code cycles} is
 * {@code npu-isa}'s per-command cycle model. Configurations that differ only in the memory's
 * latency and bytes per cycle share one Verilator model (the memory is the harness's, configured
 * per run).
 */
final class DecoderSweep {
  /** One configuration: a name for the table, the NPU and the weight format. */
  record Point(String name, NpuConfig config, String quant) {
  }

  /** One configuration's outcome. */
  record Row(Point point, DecoderRun.Result result, double wallSeconds) {
    long modelCycles(String phase) {
      return result.total(phase, Counter.CYCLES);
    }

    long rtlCycles(String phase) {
      return result.rtlCycles(phase);
    }

    /** (RTL − model) / RTL in percent. */
    double errorPercent(String phase) {
      long rtl = rtlCycles(phase);
      return rtl == 0 ? 0 : 100.0 * (rtl - modelCycles(phase)) / rtl;
    }

    double rtlSeconds() {
      return result.steps().stream().mapToDouble(DecoderRun.Step::rtlSeconds).sum();
    }
  }

  private DecoderSweep() {
  }

  /** The default NPU with {@code rows}×{@code rows} array and GEMM engine limit {@code maxK}. */
  static NpuConfig npu(int rows, int maxK) {
    NpuConfig d = NpuConfig.defaults();
    return new NpuConfig(rows, d.spadKiB(), d.spadBanks(), d.extMemMiB(), rows, d.accWidth(), d.icAccumDepth(),
        d.maxM(), maxK, d.maxN(), d.memLatency(), d.memBytesPerCycle(), d.watchdogCycles());
  }

  /**
   * The CI sweep: two models of RTL (the default NPU, shared with {@code DecoderCosimTest}; a 4×4
   * array whose engine takes K ≤ 48, so every block GEMM, the LM head and P·V beyond 48 slots are
   * K-tiled), memory timings, int8 and int4-g32.
   */
  static List<Point> ci() {
    NpuConfig d = NpuConfig.defaults();
    return List.of(
        new Point("16x16 systolic, lat 32, 16 B/c", d, "int8"),
        new Point("16x16 systolic, lat 8, 4 B/c", d.withMemory(8, 4), "int8"),
        new Point("16x16 systolic, lat 100, 8 B/c", d.withMemory(100, 8), "int8"),
        new Point("16x16 systolic, int4-g32", d, "int4-g32"),
        new Point("4x4 systolic, maxK 48 (K tiling)", npu(4, 48), "int8"));
  }

  /** The bench's sweep: the CI points and 4×4/8×8/16×16 arrays, maxK 48, the PiM engine, slow memories. */
  static List<Point> bench() {
    NpuConfig d = NpuConfig.defaults();
    List<Point> all = new java.util.ArrayList<>(ci());
    all.add(new Point("16x16 systolic, maxK 48 (K tiling)", npu(16, 48), "int8"));
    all.add(new Point("4x4 systolic, lat 32, 16 B/c", npu(4, 512), "int8"));
    all.add(new Point("8x8 systolic, lat 32, 16 B/c", npu(8, 512), "int8"));
    all.add(new Point("8x8 systolic, lat 64, 2 B/c", npu(8, 512).withMemory(64, 2), "int8"));
    all.add(new Point("4x4 systolic, maxK 48, lat 16, 1 B/c", npu(4, 48).withMemory(16, 1), "int8"));
    all.add(new Point("16x16 pim-k4, lat 32, 16 B/c", d.withEngine("pim-k4"), "int8"));
    all.add(new Point("16x16 pim-k4, maxK 48", npu(16, 48).withEngine("pim-k4"), "int8"));
    return all;
  }

  /** A {@code promptLen}-token prefill and {@code maxNew − 1} decode steps of stories260K at {@code p}, RTL vs golden. */
  static Row run(Point p, int promptLen, int maxNew) throws IOException {
    long t0 = System.nanoTime();
    DecoderRun.Result r = DecoderRun.run(new DecoderRun.Options("stories260K", promptLen, maxNew, p.quant(),
        DecoderRun.Engine.RTL, 3), p.config(), SimModes.local());
    return new Row(p, r, (System.nanoTime() - t0) / 1e9);
  }
}
