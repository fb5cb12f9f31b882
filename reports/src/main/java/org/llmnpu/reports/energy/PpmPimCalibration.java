package org.llmnpu.reports.energy;

import java.util.Locale;
import java.util.Random;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.pim.PimMacro;
import org.llmnpu.pim.PimMacroConfig;
import org.llmnpu.pim.PimPrecision;
import org.llmnpu.reports.energy.CalibrationRuns.Measured;
import org.llmnpu.rtl.ppm.LinePpm;
import org.llmnpu.rtl.ppm.PpmConfig;

/**
 * {@code PPM_ELEMENT}, {@code PPU_LOOKUP} ({@link Calibration#ppm}) and {@code PIM_COLUMN}
 * ({@link Calibration#pim}) from the PPM's and the PiM macro's own workloads ({@link BlockWorkloads}).
 */
final class PpmPimCalibration {
  /** Channel groups of the calibrated PPM's parameter memory. */
  static final int GROUPS = 8;

  private PpmPimCalibration() {
  }

  /**
   * {@code PPM_ELEMENT} on the NPU's {@code cols}-lane PPM ({@link LinePpm}, {@value #GROUPS} channel groups in its
   * parameter memory) without the PPU and {@code PPU_LOOKUP} as the same workload's energy per element on the PPM
   * with the PPU minus that (each above its own idle): 64 lines of random INT32 accumulators back to back, each of
   * the next channel group (random channel parameters, read from the memory per line as in a GEMM's drain), the PPU
   * holding the GELU table.
   */
  static void ppm(Calibration c, CalibrationRuns runs, int cols, long seed) {
    int rows = 64;
    double[] perElement = new double[2];
    String[] basis = new String[2];
    for (int i = 0; i < 2; i++) {
      PpmConfig pc = PpmConfig.of(cols, 8, i == 0 ? PpmConfig.Activation.NONE : PpmConfig.Activation.PPU);
      LinePpm ppm = new LinePpm(pc, GROUPS * cols);
      VerilogDesign d = Verilog.emit(ppm);
      Measured idle = runs.idle(d, "PPM idle" + (pc.hasPpu() ? " (PPU)" : ""));
      Random rnd = new Random(seed);
      long[] elements = new long[1];
      Measured run = runs.window(d, "PPM " + rows + " rows" + (pc.hasPpu() ? " (PPU)" : ""), s -> {
        BlockWorkloads.loadPpmChannels(s, GROUPS * cols, rnd);
        if (pc.hasPpu()) {
          BlockWorkloads.loadPpuTable(s, pc);
        }
      }, s -> elements[0] = BlockWorkloads.streamPpm(s, pc, GROUPS, ppm.latency(), rnd, rows));
      CalibrationRuns.requireSimulated(idle, run);
      perElement[i] = CalibrationRuns.aboveIdle(run, idle) / elements[0];
      basis[i] = runs.basis(run, idle, elements[0], "elements", d.top());
    }
    c.put(EnergyAction.PPM_ELEMENT, perElement[0], basis[0] + "; random INT32 accumulators (+-2^20), random "
        + "channel parameters");
    c.put(EnergyAction.PPU_LOOKUP, perElement[1] - perElement[0], String.format(Locale.ROOT, "the same workload "
        + "with the PPU (GELU table) minus without: %.4g - %.4g pJ per element; %s", perElement[1], perElement[0],
        basis[1]));
  }

  /**
   * {@code PIM_COLUMN} on a {@code rows × cols} INT8 PiM macro applying {@code bitsPerCycle} input bits per cycle:
   * a GEMM of random INT8 X (mTile × 2·rows) and W (2·rows × cols), weight writes included, above idle, per row of
   * a column operation (vectors · cols · rows).
   */
  static void pim(Calibration c, CalibrationRuns runs, int rows, int cols, int bitsPerCycle, long seed) {
    PimMacroConfig pc = new PimMacroConfig(rows, cols, PimPrecision.INT8, PimMacroConfig.Alignment.NONE, 8,
        bitsPerCycle, 0, 32, 16, PimMacroConfig.ALL_ROW_GROUPS).withStages(org.llmnpu.isa.EngineTiming.PIM_STAGES);
    VerilogDesign d = Verilog.emit(new PimMacro(pc));
    Measured idle = runs.idle(d, "PiM macro idle");
    Random rnd = new Random(seed);
    long[] vectors = new long[1];
    int m = pc.mTile();
    Measured run = runs.window(d, "PiM GEMM " + m + "x" + 2 * rows + "x" + cols, s -> { },
        s -> vectors[0] = BlockWorkloads.pimGemm(s, pc, rnd, m, 2 * rows, cols));
    CalibrationRuns.requireSimulated(idle, run);
    double cellOps = (double) vectors[0] * cols * rows;
    c.put(EnergyAction.PIM_COLUMN, CalibrationRuns.aboveIdle(run, idle) / cellOps, runs.basis(run, idle, cellOps,
        String.format(Locale.ROOT, "rows of column operations (%d vectors x %d columns x %d rows; %d input bits per "
        + "cycle, weight writes included)", vectors[0], cols, rows, bitsPerCycle), d.top()));
  }
}
