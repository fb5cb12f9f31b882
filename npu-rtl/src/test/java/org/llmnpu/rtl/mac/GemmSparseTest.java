package org.llmnpu.rtl.mac;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.llmnpu.rtl.mac.GemmEngineBitExactTest.assertMatchesGolden;
import static org.llmnpu.rtl.mac.GemmEngineBitExactTest.random;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.gemm.IntGemm;
import org.llmnpu.numerics.sparse.NmCompressedMatrix;

/**
 * N:M zero-skipping (2:4 and 4:8): weights in the numerics compressed format (N values + N indices
 * of log2 M bits per group of M K), bit exact with the golden tiled GEMM (Y, overflow flag, psum
 * counters), equal to the dense GEMM of the zero-filled weights, and cycle exact with the formula;
 * one pass covers 2·rows K, so the K loop takes half the passes.
 */
class GemmSparseTest {

  /** A random K×N matrix pruned N:M along K (N random survivors per group of M, some of them zero). */
  static byte[][] pruned(Random rnd, int k, int n, WeightSparsity s) {
    byte[][] w = random(rnd, k, n);
    int group = s.group();
    for (int col = 0; col < n; col++) {
      for (int g = 0; g < k; g += group) {
        boolean[] keep = new boolean[group];
        for (int kept = 0; kept < s.kept(); ) {
          int i = rnd.nextInt(group);
          if (!keep[i]) {
            keep[i] = true;
            kept++;
          }
        }
        for (int i = 0; i < group && g + i < k; i++) {
          if (!keep[i]) {
            w[g + i][col] = 0;
          }
        }
      }
    }
    return w;
  }

  /** A random K×N matrix pruned 2:4 along K. */
  static byte[][] pruned24(Random rnd, int k, int n) {
    return pruned(rnd, k, n, WeightSparsity.S2_4);
  }

  /** Runs W (zero-filled K×N, N:M) through the engine in the compressed layout of NmCompressedMatrix. */
  static GemmEngineDriver.Result runCompressed(GemmEngineDriver d, byte[][] x, byte[][] w) {
    WeightSparsity s = d.config().array().sparsity();
    int k = w.length;
    int n = w[0].length;
    int kPadded = (k + s.group() - 1) / s.group() * s.group();
    byte[][] wt = new byte[n][kPadded];
    for (int kk = 0; kk < k; kk++) {
      for (int col = 0; col < n; col++) {
        wt[col][kk] = w[kk][col];
      }
    }
    NmCompressedMatrix cm = NmCompressedMatrix.compress(wt, s.pattern());
    int[][] indices = new int[n][];
    for (int col = 0; col < n; col++) {
      indices[col] = cm.rowIndices(col);
    }
    return d.runSparse(x, k, n, cm.values(), indices);
  }

  private static void assertDenseOfZeroFilled(byte[][] x, byte[][] w, GemmEngineDriver.Result r, String what) {
    long[][] dense = IntGemm.exact(x, w);
    for (int i = 0; i < x.length; i++) {
      long[] got = new long[w[0].length];
      for (int j = 0; j < got.length; j++) {
        got[j] = r.y()[i][j];
      }
      assertArrayEquals(dense[i], got, what + ": dense GEMM of the zero-filled weights, row " + i);
    }
  }

  @ParameterizedTest(name = "{0} icAccumDepth {1}")
  @CsvSource({"s2_4, 0", "s2_4, 1", "s4_8, 0", "s4_8, 1"})
  void sparseGemmEqualsDenseGemmOfZeroFilledWeights(String mode, int depth) {
    WeightSparsity sp = WeightSparsity.parse(mode);
    int cols = depth == 0 ? 4 : 3;
    MacArrayConfig a = new MacArrayConfig(4, cols, 32, 4, depth, sp);
    GemmEngineConfig c = new GemmEngineConfig(a, 16, 64, 12);
    Random rnd = new Random(20 + depth + 10 * sp.ordinal());
    try (Simulator s = MacSim.start(c)) {
      GemmEngineDriver d = new GemmEngineDriver(s, c);
      // Ragged K on purpose: 13, 30, 17 and 2 leave a partial group and a partial K tile.
      int[][] shapes = {{4, 8, 4}, {5, 13, 7}, {16, 64, 12}, {1, 2, 1}, {9, 30, 5}, {3, 17, 12}, {6, 41, 3}};
      for (int[] sh : shapes) {
        byte[][] x = random(rnd, sh[0], sh[1]);
        byte[][] w = pruned(rnd, sh[1], sh[2], sp);
        GemmEngineDriver.Result r = runCompressed(d, x, w);
        String what = mode + " depth " + depth + " M,K,N = " + sh[0] + "," + sh[1] + "," + sh[2];
        assertMatchesGolden(a, x, w, r, what);
        assertDenseOfZeroFilled(x, w, r, what);
      }
    }
  }

  @Test
  void fourEightCornerCasesAllMinus128AndSaturation() {
    // 8 rows of 4:8 = 16 K per pass; a 20-bit accumulator saturates on long all -128 / +127 sums.
    MacArrayConfig a = new MacArrayConfig(8, 3, 20, 4, 1, WeightSparsity.S4_8);
    GemmEngineConfig c = new GemmEngineConfig(a, 8, 128, 6);
    try (Simulator s = MacSim.start(c)) {
      GemmEngineDriver d = new GemmEngineDriver(s, c);
      // All -128 with the 4 survivors of every group of 8 at -128 too (positions 0, 3, 5, 7).
      byte[][] x = GemmEngineBitExactTest.filled(5, 99, (byte) -128);
      byte[][] w = new byte[99][4];
      for (int kk = 0; kk < 99; kk++) {
        int pos = kk % 8;
        for (int col = 0; col < 4; col++) {
          w[kk][col] = pos == 0 || pos == 3 || pos == 5 || pos == 7 ? (byte) -128 : 0;
        }
      }
      GemmEngineDriver.Result r = runCompressed(d, x, w);
      assertMatchesGolden(a, x, w, r, "4:8 all -128, K = 99");
      assertTrue(r.overflow(), "49 products of 2^14 exceed the 20-bit accumulator");
      assertEquals((1 << 19) - 1, r.y()[0][0], "saturated at the 20-bit maximum");
      // Mixed signs: +127·-128 products push the accumulator to its negative limit.
      byte[][] xs = GemmEngineBitExactTest.filled(3, 128, (byte) 127);
      byte[][] ws = pruned(new Random(7), 128, 6, WeightSparsity.S4_8);
      for (byte[] row : ws) {
        for (int col = 0; col < row.length; col++) {
          row[col] = row[col] != 0 ? (byte) -128 : 0;
        }
      }
      GemmEngineDriver.Result rs = runCompressed(d, xs, ws);
      assertMatchesGolden(a, xs, ws, rs, "4:8 +127 x -128 saturation, K = 128");
      assertEquals(-(1 << 19), rs.y()[2][5]);
    }
  }

  @Test
  void fourEightOnAnEightRowArrayEqualsTheGoldenAndTheFormula() {
    MacArrayConfig a = new MacArrayConfig(8, 4, 32, 8, MacArrayConfig.ALL_K_TILES, WeightSparsity.S4_8);
    GemmEngineConfig c = new GemmEngineConfig(a, 32, 256, 8);
    Random rnd = new Random(48);
    try (Simulator s = MacSim.start(c)) {
      GemmEngineDriver d = new GemmEngineDriver(s, c);
      int[][] shapes = {{32, 256, 8}, {7, 172, 5}, {16, 16, 4}, {2, 3, 1}, {24, 100, 8}};
      for (int[] sh : shapes) {
        byte[][] x = random(rnd, sh[0], sh[1]);
        byte[][] w = pruned(rnd, sh[1], sh[2], WeightSparsity.S4_8);
        GemmEngineDriver.Result r = runCompressed(d, x, w);
        String what = "4:8 8x4 M,K,N = " + sh[0] + "," + sh[1] + "," + sh[2];
        assertMatchesGolden(a, x, w, r, what);
        assertDenseOfZeroFilled(x, w, r, what);
      }
    }
  }

  @Test
  void sparsePassCoversTwiceTheK() {
    MacArrayConfig s24 = new MacArrayConfig(4, 4, 32, 4, 0, WeightSparsity.S2_4);
    MacArrayConfig s48 = new MacArrayConfig(4, 4, 32, 4, 0, WeightSparsity.S4_8);
    MacArrayConfig dense = new MacArrayConfig(4, 4, 32, 4, 0, WeightSparsity.NONE);
    assertEquals(8, s24.kPerTile());
    assertEquals(8, s48.kPerTile());
    assertEquals(8, s48.actsPerRow());
    assertEquals(11, s48.weightEntryBits());
    assertEquals(16, GemmCycleModel.kTiles(dense, 64));
    assertEquals(8, GemmCycleModel.kTiles(s24, 64));
    assertEquals(8, GemmCycleModel.kTiles(s48, 64));
    assertEquals(2L * 8 * 16 + 8, GemmCycleModel.cycles(s24, 16, 64, 8),
        "2 N tiles x 8 K tiles x 16 rows + fill/drain");
    assertEquals(GemmCycleModel.cycles(s24, 16, 64, 8), GemmCycleModel.cycles(s48, 16, 64, 8));
    assertEquals(2L * 16 * 16 + 8, GemmCycleModel.cycles(dense, 16, 64, 8));
    var e = assertThrows(IllegalArgumentException.class, () -> new MacArrayConfig(6, 4, 32, 4, 0, WeightSparsity.S4_8));
    assertTrue(e.getMessage().contains("rows must be a multiple of 4 with s4_8"), e.getMessage());
  }
}
