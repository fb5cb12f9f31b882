package org.llmnpu.rtl.mac;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.gemm.TiledGemm;
import org.llmnpu.numerics.gemm.TiledGemmConfig;

/** Dense GEMMs on a 4×4 engine, bit exact with the golden tiled GEMM, cycle exact with the formula. */
class GemmEngineBitExactTest {

  static byte[][] random(Random rnd, int rows, int cols) {
    byte[][] a = new byte[rows][cols];
    for (byte[] row : a) {
      rnd.nextBytes(row);
    }
    return a;
  }

  static TiledGemmConfig golden(MacArrayConfig a) {
    int depth = a.foldsAllKTiles() ? TiledGemmConfig.ALL_K_TILES : a.icAccumDepth();
    return new TiledGemmConfig(a.rows(), a.cols(), a.mTile(), a.accWidth(), depth, a.sparsity().golden());
  }

  static void assertMatchesGolden(MacArrayConfig a, byte[][] x, byte[][] w, GemmEngineDriver.Result r, String what) {
    TiledGemm.Result g = TiledGemm.run(golden(a), x, w);
    for (int i = 0; i < x.length; i++) {
      assertArrayEquals(g.y()[i], r.y()[i], what + ": row " + i);
    }
    assertEquals(g.overflow(), r.overflow(), what + ": overflow flag");
    assertEquals(g.psumWritebacks(), r.psumWritebacks(), what + ": psum write-backs");
    assertEquals(g.psumReadbacks(), r.psumReadbacks(), what + ": psum read-backs");
    int m = x.length;
    int k = w.length;
    int n = w[0].length;
    assertEquals(GemmCycleModel.psumWritebacks(a, m, k, n), r.psumWritebacks(), what + ": write-back formula");
    assertEquals(GemmCycleModel.cycles(a, m, k, n), r.cycles(), what + ": cycle formula");
  }

  @Test
  void randomDenseGemmsIncludingRaggedShapesAreBitExact() {
    MacArrayConfig a = new MacArrayConfig(4, 4, 32, 8, MacArrayConfig.ALL_K_TILES, WeightSparsity.NONE);
    GemmEngineConfig c = new GemmEngineConfig(a, 32, 64, 16);
    Random rnd = new Random(1);
    try (Simulator s = MacSim.start(c)) {
      GemmEngineDriver d = new GemmEngineDriver(s, c);
      int[][] shapes = {{4, 4, 4}, {8, 8, 8}, {5, 7, 3}, {1, 1, 1}, {17, 13, 9}, {32, 64, 16}, {9, 4, 5}};
      for (int[] sh : shapes) {
        byte[][] x = random(rnd, sh[0], sh[1]);
        byte[][] w = random(rnd, sh[1], sh[2]);
        assertMatchesGolden(a, x, w, d.runDense(x, w), "M,K,N = " + sh[0] + "," + sh[1] + "," + sh[2]);
      }
    }
  }

  @Test
  void allMinusOneTwentyEightIsExactInThirtyTwoBits() {
    MacArrayConfig a = new MacArrayConfig(4, 4, 32, 8, MacArrayConfig.ALL_K_TILES, WeightSparsity.NONE);
    GemmEngineConfig c = new GemmEngineConfig(a, 32, 64, 16);
    try (Simulator s = MacSim.start(c)) {
      GemmEngineDriver d = new GemmEngineDriver(s, c);
      byte[][] x = filled(11, 64, (byte) -128);
      byte[][] w = filled(64, 6, (byte) -128);
      GemmEngineDriver.Result r = d.runDense(x, w);
      assertMatchesGolden(a, x, w, r, "all -128");
      assertEquals(64 * 16384, r.y()[10][5]);
    }
  }

  @Test
  void reductionsUpToK1024AreBitExactAndCycleExact() {
    MacArrayConfig a = new MacArrayConfig(4, 4, 32, 4, 8, WeightSparsity.NONE);
    GemmEngineConfig c = new GemmEngineConfig(a, 8, 1024, 8);
    Random rnd = new Random(2);
    try (Simulator s = MacSim.start(c)) {
      GemmEngineDriver d = new GemmEngineDriver(s, c);
      int[][] shapes = {{8, 1024, 8}, {3, 1001, 5}, {8, 513, 7}};
      for (int[] sh : shapes) {
        byte[][] x = random(rnd, sh[0], sh[1]);
        byte[][] w = random(rnd, sh[1], sh[2]);
        assertMatchesGolden(a, x, w, d.runDense(x, w), "M,K,N = " + sh[0] + "," + sh[1] + "," + sh[2]);
      }
    }
  }

  static byte[][] filled(int rows, int cols, byte v) {
    byte[][] a = new byte[rows][cols];
    for (byte[] row : a) {
      java.util.Arrays.fill(row, v);
    }
    return a;
  }
}
