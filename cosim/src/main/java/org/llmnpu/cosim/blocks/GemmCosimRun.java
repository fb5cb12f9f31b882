package org.llmnpu.cosim.blocks;

import java.util.Arrays;
import java.util.Random;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.cosim.WaveCapture;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.gemm.TiledGemm;
import org.llmnpu.numerics.gemm.TiledGemmConfig;
import org.llmnpu.numerics.sparse.NmCompressedMatrix;
import org.llmnpu.rtl.mac.GemmCycleModel;
import org.llmnpu.rtl.mac.GemmEngine;
import org.llmnpu.rtl.mac.GemmEngineConfig;
import org.llmnpu.rtl.mac.GemmEngineDriver;
import org.llmnpu.rtl.mac.GemmPpmDriver;
import org.llmnpu.rtl.mac.GemmPpmEngine;
import org.llmnpu.rtl.mac.MacArrayConfig;
import org.llmnpu.rtl.mac.WeightSparsity;
import org.llmnpu.verilator.Simulators;

/**
 * One co-simulated GEMM: random INT8 X and W from a seed (W pruned N:M along K with
 * {@code s2_4} / {@code s4_8}: N random survivors per group of M), the {@link GemmEngine} in Verilator, and the
 * golden {@link TiledGemm} with the same parameters; optionally the PPM after it ({@link GemmPpmCosim}).
 */
public final class GemmCosimRun {
  /** What the command prints. */
  public record Outcome(boolean bitExact, long rtlCycles, long modelCycles, double utilization,
                 long psumWritebacks, long psumReadbacks, long modelWritebacks, boolean overflow,
                 Boolean ppmBitExact, long totalCycles, long modelTotalCycles) {
  }

  private GemmCosimRun() {
  }

  /**
   * Runs the GEMM; with {@code ppm} (may be null) the engine includes the PPM and its codes are checked too;
   * {@code waves} says whether the simulation traces (and notes its wave file).
   */
  public static Outcome run(MacArrayConfig a, int m, int k, int n, long seed, GemmPpmCosim ppm, WaveCapture waves) {
    Random rnd = new Random(seed);
    byte[][] x = randomMatrix(rnd, m, k);
    byte[][] w = randomMatrix(rnd, k, n);
    if (a.sparsity().sparse()) {
      prune(rnd, w, a.sparsity());
    }
    // Capacities rounded up to powers of two, so nearby shapes share one cached model.
    GemmEngineConfig c = new GemmEngineConfig(a, ceilPow2(m), ceilPow2(k), ceilPow2(n));
    GemmEngineDriver.Result r;
    long gemmCycles;
    int[][] codes = null;
    HwModule top = ppm == null ? new GemmEngine(c) : new GemmPpmEngine(c, ppm.config());
    try (Simulator sim = Simulators.start(Verilog.emit(top), waves.options())) {
      waves.note(sim);
      sim.reset(2);
      GemmEngineDriver d = new GemmEngineDriver(sim, c);
      GemmPpmDriver pd = ppm == null ? null : new GemmPpmDriver(sim, c, ppm.config());
      if (pd != null) {
        ppm.load(pd, rnd, k, n);
      }
      r = a.sparsity().sparse() ? runCompressed(d, x, w, a.sparsity()) : d.runDense(x, w);
      gemmCycles = ppm == null ? r.cycles() : sim.peekLong("gemmCycles");
      if (pd != null) {
        codes = pd.readCodes(m, n);
      }
    }
    TiledGemm.Result g = TiledGemm.run(golden(a), x, w);
    boolean exact = Arrays.deepEquals(g.y(), r.y()) && g.overflow() == r.overflow()
        && g.psumWritebacks() == r.psumWritebacks() && g.psumReadbacks() == r.psumReadbacks();
    Boolean ppmExact = ppm == null ? null : ppm.matches(g, codes);
    long modelTotal = ppm == null ? GemmCycleModel.cycles(a, m, k, n)
        : GemmCycleModel.ppmCycles(a, m, k, n, ppm.config().latency());
    return new Outcome(exact, gemmCycles, GemmCycleModel.cycles(a, m, k, n),
        GemmCycleModel.utilization(a, m, k, n, gemmCycles), r.psumWritebacks(), r.psumReadbacks(),
        GemmCycleModel.psumWritebacks(a, m, k, n), r.overflow(), ppmExact, r.cycles(), modelTotal);
  }

  /** The golden tiled GEMM's parameters for an array. */
  public static TiledGemmConfig golden(MacArrayConfig a) {
    int depth = a.foldsAllKTiles() ? TiledGemmConfig.ALL_K_TILES : a.icAccumDepth();
    return new TiledGemmConfig(a.rows(), a.cols(), a.mTile(), a.accWidth(), depth, a.sparsity().golden());
  }

  private static GemmEngineDriver.Result runCompressed(GemmEngineDriver d, byte[][] x, byte[][] w, WeightSparsity sp) {
    int k = w.length;
    int n = w[0].length;
    byte[][] wt = new byte[n][(k + sp.group() - 1) / sp.group() * sp.group()];
    for (int kk = 0; kk < k; kk++) {
      for (int col = 0; col < n; col++) {
        wt[col][kk] = w[kk][col];
      }
    }
    NmCompressedMatrix cm = NmCompressedMatrix.compress(wt, sp.pattern());
    int[][] indices = new int[n][];
    for (int col = 0; col < n; col++) {
      indices[col] = cm.rowIndices(col);
    }
    return d.runSparse(x, k, n, cm.values(), indices);
  }

  private static byte[][] randomMatrix(Random rnd, int rows, int cols) {
    byte[][] a = new byte[rows][cols];
    for (byte[] row : a) {
      rnd.nextBytes(row);
    }
    return a;
  }

  /** Keeps N random positions of every group of M K rows in each column (N:M of {@code sp}). */
  private static void prune(Random rnd, byte[][] w, WeightSparsity sp) {
    int group = sp.group();
    for (int col = 0; col < w[0].length; col++) {
      for (int g = 0; g < w.length; g += group) {
        boolean[] keep = new boolean[group];
        for (int kept = 0; kept < sp.kept(); ) {
          int i = rnd.nextInt(group);
          if (!keep[i]) {
            keep[i] = true;
            kept++;
          }
        }
        for (int i = 0; i < group && g + i < w.length; i++) {
          if (!keep[i]) {
            w[g + i][col] = 0;
          }
        }
      }
    }
  }

  /** The engine capacity for a dimension: the next power of two (nearby shapes share one cached model). */
  public static int ceilPow2(int v) {
    return Integer.highestOneBit(Math.max(1, v - 1)) << (v > 1 ? 1 : 0);
  }
}
