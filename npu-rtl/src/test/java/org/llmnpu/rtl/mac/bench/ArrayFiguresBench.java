package org.llmnpu.rtl.mac.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.gemm.TiledGemm;
import org.llmnpu.numerics.gemm.TiledGemmConfig;
import org.llmnpu.numerics.sparse.NmCompressedMatrix;
import org.llmnpu.rtl.mac.GemmCycleModel;
import org.llmnpu.rtl.mac.GemmEngine;
import org.llmnpu.rtl.mac.GemmEngineConfig;
import org.llmnpu.rtl.mac.GemmEngineDriver;
import org.llmnpu.rtl.mac.MacArray;
import org.llmnpu.rtl.mac.MacArrayConfig;
import org.llmnpu.rtl.mac.WeightSparsity;
import org.llmnpu.verilator.SimOptions;
import org.llmnpu.verilator.Simulators;

/**
 * Figures for the npu-rtl README (issue 4), every one simulated in Verilator and checked bit exact
 * against the golden model and cycle exact against {@link GemmCycleModel}. Run with
 * {@code mvn -q -pl npu-rtl test -Dbench -Dtest=ArrayFiguresBench -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class ArrayFiguresBench {
  private static final int ALL = MacArrayConfig.ALL_K_TILES;

  @Test
  void utilizationAt512Cubed() {
    System.out.println("| array | M=K=N | RTL cycles | model cycles | MAC utilization | wall time (s) |");
    System.out.println("|---|---|---|---|---|---|");
    for (int size : new int[] {8, 16}) {
      MacArrayConfig a = new MacArrayConfig(size, size, 32, 16, ALL, WeightSparsity.NONE);
      Run r = run(a, 512, 512, 512, 1);
      System.out.printf(Locale.ROOT, "| %dx%d | 512 | %d | %d | %.4f %% | %.1f |%n", size, size, r.result.cycles(),
          GemmCycleModel.cycles(a, 512, 512, 512), 100 * GemmCycleModel.utilization(a, 512, 512, 512,
              r.result.cycles()), r.seconds);
    }
  }

  @Test
  void sparseSpeedupOnKBoundShapes() {
    System.out.println("| array | M | K | N | dense cycles | 2:4 cycles | 4:8 cycles | 2:4 speedup | 4:8 speedup |");
    System.out.println("|---|---|---|---|---|---|---|---|---|");
    // One engine per array and mode (capacities cover every shape), so each model is built once.
    int[][] shapes = {{16, 1024, 16}, {64, 1024, 16}, {172, 172, 64}, {256, 256, 256}};
    for (int size : new int[] {8, 16}) {
      for (int[] s : shapes) {
        MacArrayConfig dense = new MacArrayConfig(size, size, 32, 16, ALL, WeightSparsity.NONE);
        MacArrayConfig s24 = new MacArrayConfig(size, size, 32, 16, ALL, WeightSparsity.S2_4);
        MacArrayConfig s48 = new MacArrayConfig(size, size, 32, 16, ALL, WeightSparsity.S4_8);
        long d = run(new GemmEngineConfig(dense, 256, 1024, 256), s[0], s[1], s[2], 2).result.cycles();
        long c24 = run(new GemmEngineConfig(s24, 256, 1024, 256), s[0], s[1], s[2], 2).result.cycles();
        long c48 = run(new GemmEngineConfig(s48, 256, 1024, 256), s[0], s[1], s[2], 2).result.cycles();
        System.out.printf(Locale.ROOT, "| %dx%d | %d | %d | %d | %d | %d | %d | %.3fx | %.3fx |%n", size, size, s[0], s[1],
            s[2], d, c24, c48, (double) d / c24, (double) d / c48);
      }
    }
  }

  @Test
  void psumWritebacksByIcAccumDepth() {
    System.out.println("| array | M=K=N | icAccumDepth | psum write-backs | psum read-backs | formula | RTL cycles |");
    System.out.println("|---|---|---|---|---|---|---|");
    for (int depth : new int[] {1, 2, 4, 8, ALL}) {
      MacArrayConfig a = new MacArrayConfig(16, 16, 32, 16, depth, WeightSparsity.NONE);
      GemmEngineDriver.Result r = run(a, 512, 512, 512, 3).result;
      System.out.printf(Locale.ROOT, "| 16x16 | 512 | %s | %d | %d | %d | %d |%n", depth == ALL ? "all (32)" : depth,
          r.psumWritebacks(), r.psumReadbacks(), GemmCycleModel.psumWritebacks(a, 512, 512, 512), r.cycles());
    }
  }

  @Test
  void elaborationTimeOf64x64() {
    System.out.println("| design | elaborate + emit (s) | Verilog lines |");
    System.out.println("|---|---|---|");
    for (WeightSparsity s : WeightSparsity.values()) {
      MacArrayConfig a = new MacArrayConfig(64, 64, 32, 16, ALL, s);
      Verilog.emit(new MacArray(a, 16));
      long t0 = System.nanoTime();
      var d = Verilog.emit(new MacArray(a, 16));
      double sec = (System.nanoTime() - t0) / 1e9;
      long lines = d.files().values().stream().mapToLong(f -> f.lines().count()).sum();
      System.out.printf(Locale.ROOT, "| mac-array 64x64 %s | %.2f | %d |%n", s.cliName(), sec, lines);
    }
  }

  private record Run(GemmEngineDriver.Result result, double seconds) {
  }

  /** Builds (cached) the engine, runs a random GEMM and checks it against TiledGemm and the cycle model. */
  private static Run run(MacArrayConfig a, int m, int k, int n, long seed) {
    return run(new GemmEngineConfig(a, m, k, n), m, k, n, seed);
  }

  /** The same on an engine with the given capacities. */
  private static Run run(GemmEngineConfig c, int m, int k, int n, long seed) {
    MacArrayConfig a = c.array();
    Random rnd = new Random(seed);
    byte[][] x = new byte[m][k];
    byte[][] w = new byte[k][n];
    for (byte[] row : x) {
      rnd.nextBytes(row);
    }
    for (byte[] row : w) {
      rnd.nextBytes(row);
    }
    WeightSparsity sp = a.sparsity();
    boolean sparse = sp.sparse();
    if (sparse) {
      for (int kk = 0; kk < k; kk++) {
        for (int j = 0; j < n; j++) {
          if ((kk + j) % sp.group() >= sp.kept()) {
            w[kk][j] = 0;
          }
        }
      }
    }
    long t0 = System.nanoTime();
    GemmEngineDriver.Result r;
    try (Simulator s = Simulators.start(Verilog.emit(new GemmEngine(c)), SimOptions.fromEnvironment())) {
      s.reset(2);
      GemmEngineDriver d = new GemmEngineDriver(s, c);
      r = sparse ? runCompressed(d, x, w) : d.runDense(x, w);
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    TiledGemm.Result g = TiledGemm.run(new TiledGemmConfig(a.rows(), a.cols(), a.mTile(), a.accWidth(),
        a.foldsAllKTiles() ? TiledGemmConfig.ALL_K_TILES : a.icAccumDepth(), sp.golden()), x, w);
    for (int i = 0; i < m; i++) {
      assertArrayEquals(g.y()[i], r.y()[i], "row " + i);
    }
    assertEquals(g.psumWritebacks(), r.psumWritebacks());
    assertEquals(GemmCycleModel.cycles(a, m, k, n), r.cycles());
    return new Run(r, seconds);
  }

  private static GemmEngineDriver.Result runCompressed(GemmEngineDriver d, byte[][] x, byte[][] w) {
    int k = w.length;
    int n = w[0].length;
    WeightSparsity sp = d.config().array().sparsity();
    byte[][] wt = new byte[n][(k + sp.group() - 1) / sp.group() * sp.group()];
    for (int kk = 0; kk < k; kk++) {
      for (int j = 0; j < n; j++) {
        wt[j][kk] = w[kk][j];
      }
    }
    NmCompressedMatrix cm = NmCompressedMatrix.compress(wt, sp.pattern());
    int[][] indices = new int[n][];
    for (int j = 0; j < n; j++) {
      indices[j] = cm.rowIndices(j);
    }
    return d.runSparse(x, k, n, cm.values(), indices);
  }
}
