package org.llmnpu.reports.energy;

import java.util.Locale;
import java.util.Random;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.numerics.sparse.NmCompressedMatrix;
import org.llmnpu.numerics.sparse.NmPattern;
import org.llmnpu.reports.energy.CalibrationRuns.Measured;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.rtl.mac.GemmEngine;
import org.llmnpu.rtl.mac.GemmEngineConfig;
import org.llmnpu.rtl.mac.GemmEngineDriver;
import org.llmnpu.rtl.mac.MacArrayConfig;
import org.llmnpu.rtl.mac.WeightSparsity;

/**
 * {@code MAC}, {@code MAC_2_4}, {@code MAC_IDLE} and {@code PSUM_WRITEBACK} ({@link Calibration#gemm}): the GEMM
 * engine on random INT8 X and W, dense and with W pruned 2:4 (two random survivors per group of four along K).
 */
final class GemmCalibration {
  private GemmCalibration() {
  }

  /** Which of the two engines' runs {@link #run} makes. */
  enum Engines {
    BOTH, DENSE, SPARSE_2_4
  }

  /**
   * The engines' runs: with {@link Engines#BOTH} the four entries; {@code DENSE} makes only the dense engine's runs
   * (MAC_IDLE, MAC, PSUM_WRITEBACK) and {@code SPARSE_2_4} only the 2:4 engine's (MAC_2_4 when OpenSTA propagates its
   * activity; its fallback needs the dense MAC, so it is left to a run of both) — the same designs, data and runs
   * as a run of both, so their OpenSTA runs are the same cache entries.
   */
  static void run(Calibration c, CalibrationRuns runs, int rows, int cols, int m, int k, int n, long seed,
                  Engines engines) {
    MacArrayConfig dense = new MacArrayConfig(rows, cols, 32, Math.max(2, Math.min(1024, m)), 0, WeightSparsity.NONE);
    MacArrayConfig sparse = new MacArrayConfig(rows, cols, 32, Math.max(2, Math.min(1024, m)), 0, WeightSparsity.S2_4);
    GemmEngineConfig dc = new GemmEngineConfig(dense, m, k, n);
    GemmEngineConfig sc = new GemmEngineConfig(sparse, m, k, n);
    Random rnd = new Random(seed);
    byte[][] x = random(rnd, m, k);
    byte[][] w = random(rnd, k, n);
    VerilogDesign dd = Verilog.emit(new GemmEngine(dc));
    long[] psum = new long[1];
    if (engines != Engines.SPARSE_2_4) {
      dense(c, runs, dc, dd, x, w, psum);
    }
    // 2:4: prune W to two random survivors per group of four along K and run the compressed engine
    byte[][] wt = new byte[n][(k + 3) / 4 * 4];
    for (int col = 0; col < n; col++) {
      for (int g = 0; g * 4 < k; g++) {
        int a = rnd.nextInt(4);
        int b = (a + 1 + rnd.nextInt(3)) % 4;
        for (int j = 0; j < 4 && g * 4 + j < k; j++) {
          wt[col][g * 4 + j] = j == a || j == b ? w[g * 4 + j][col] : 0;
        }
      }
    }
    NmCompressedMatrix cm = NmCompressedMatrix.compress(wt, NmPattern.TWO_FOUR);
    int[][] idx = new int[n][];
    for (int col = 0; col < n; col++) {
      idx[col] = cm.rowIndices(col);
    }
    if (engines == Engines.DENSE) {
      writeback(c, dense, dd, m, n, cols, psum[0]);
      return;
    }
    VerilogDesign sd = Verilog.emit(new GemmEngine(sc));
    Measured sidle = runs.idle(sd, "GEMM engine 2:4 idle");
    Measured sbusy = runs.measure(sd, "GEMM 2:4 " + m + "x" + k + "x" + n, s ->
        new GemmEngineDriver(s, sc).runSparse(x, k, n, cm.values(), idx));
    double executed = (double) m * ((k + 3) / 4 * 2) * n;
    if (sbusy.simulated() && sidle.simulated()) {
      c.put(EnergyAction.MAC_2_4, CalibrationRuns.aboveIdle(sbusy, sidle) / executed, runs.basis(sbusy, sidle, executed,
          "executed MACs (half the dense-equivalent)", sd.top()));
    } else if (engines == Engines.SPARSE_2_4) {
      runs.log.accept("  the 2:4 engine's activity did not propagate; its fallback is left to the whole calibration");
      return;
    } else if (rows > 2 || cols > 2) {
      // Debian's OpenSTA crashes on some 2:4 netlists; take the 2:4/dense ratio of a 2x2 array
      Calibration small = new Calibration(runs.ppa, runs.sim, line -> runs.log.accept("  [2x2, for the 2:4/dense "
          + "ratio]" + line)).gemm(2, 2, 4, 8, 4, seed);
      double ratio = small.entry(EnergyAction.MAC_2_4).pj180() / small.entry(EnergyAction.MAC).pj180();
      double densePj = c.entry(EnergyAction.MAC).pj180();
      c.put(EnergyAction.MAC_2_4, densePj * ratio, String.format(Locale.ROOT, "scaled: OpenSTA crashed on %s, so the "
          + "dense MAC of %s (%.4g pJ) times the 2:4/dense ratio %.3f measured on 2x2 arrays", sd.top(), dd.top(),
          densePj, ratio));
    } else {
      CalibrationRuns.requireSimulated(sidle, sbusy);
    }
    if (engines == Engines.BOTH) {
      writeback(c, dense, dd, m, n, cols, psum[0]);
    }
  }

  /** MAC_IDLE and MAC: the dense engine clocked idle, then computing X·W. */
  private static void dense(Calibration c, CalibrationRuns runs, GemmEngineConfig dc, VerilogDesign dd, byte[][] x,
                            byte[][] w, long[] psum) {
    Measured idle = runs.idle(dd, "GEMM engine idle");
    Measured busy = runs.measure(dd, "GEMM dense " + dc.maxM() + "x" + dc.maxK() + "x" + dc.maxN(), s -> {
      psum[0] = new GemmEngineDriver(s, dc).runDense(x, w).psumWritebacks();
    });
    CalibrationRuns.requireSimulated(idle, busy);
    double macs = (double) dc.maxM() * dc.maxK() * dc.maxN();
    c.put(EnergyAction.MAC_IDLE, idle.energyPerCyclePj(), String.format(Locale.ROOT,
        "OpenSTA: %s, %d cycles clocked with nothing to do: %.3f mW at %.3g ns", dd.top(), idle.cycles(), idle.mw(),
        runs.ppa.clockNs()));
    c.put(EnergyAction.MAC, CalibrationRuns.aboveIdle(busy, idle) / macs, runs.basis(busy, idle, macs, "MACs",
        dd.top()));
  }

  /** PSUM_WRITEBACK from the SRAM model of the dense engine's psum memory. */
  private static void writeback(Calibration c, MacArrayConfig dense, VerilogDesign dd, int m, int n, int cols,
                                long psums) {
    double writeback = EnergyTable.sramAccessPj(dense.accWidth(), Math.max(2, m * ((n + cols - 1) / cols)),
        NodeScaling.Node.N180);
    c.put(EnergyAction.PSUM_WRITEBACK, writeback, String.format(Locale.ROOT, "SRAM model: one %d-bit write of the "
        + "psum memory of %s (%d write-backs in the dense run)", dense.accWidth(), dd.top(), psums));
  }

  private static byte[][] random(Random rnd, int rows, int cols) {
    byte[][] a = new byte[rows][cols];
    for (byte[] row : a) {
      rnd.nextBytes(row);
    }
    return a;
  }
}
