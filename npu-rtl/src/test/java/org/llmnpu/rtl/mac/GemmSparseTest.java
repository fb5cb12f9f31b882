package org.llmnpu.rtl.mac;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.llmnpu.rtl.mac.GemmEngineBitExactTest.assertMatchesGolden;
import static org.llmnpu.rtl.mac.GemmEngineBitExactTest.random;

import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.gemm.IntGemm;
import org.llmnpu.numerics.sparse.NmCompressedMatrix;
import org.llmnpu.numerics.sparse.NmPattern;

/**
 * 2:4 zero-skipping: weights in the numerics compressed format (2 values + 2 two-bit indices per
 * group of 4 K), bit exact with the golden tiled GEMM and equal to the dense GEMM of the
 * zero-filled weights; one pass covers 2·rows K, so the K loop takes half the passes.
 */
class GemmSparseTest {

  /** A random K×N matrix pruned 2:4 along K (two random survivors per group, some of them zero). */
  static byte[][] pruned24(Random rnd, int k, int n) {
    byte[][] w = random(rnd, k, n);
    for (int col = 0; col < n; col++) {
      for (int g = 0; g < k; g += 4) {
        int keepA = rnd.nextInt(4);
        int keepB = (keepA + 1 + rnd.nextInt(3)) % 4;
        for (int i = 0; i < 4 && g + i < k; i++) {
          if (i != keepA && i != keepB) {
            w[g + i][col] = 0;
          }
        }
      }
    }
    return w;
  }

  /** Runs W (zero-filled K×N, 2:4) through the engine in the compressed layout of NmCompressedMatrix. */
  static GemmEngineDriver.Result runCompressed(GemmEngineDriver d, byte[][] x, byte[][] w) {
    int k = w.length;
    int n = w[0].length;
    int kPadded = (k + 3) / 4 * 4;
    byte[][] wt = new byte[n][kPadded];
    for (int kk = 0; kk < k; kk++) {
      for (int col = 0; col < n; col++) {
        wt[col][kk] = w[kk][col];
      }
    }
    NmCompressedMatrix cm = NmCompressedMatrix.compress(wt, NmPattern.TWO_FOUR);
    int[][] indices = new int[n][];
    for (int col = 0; col < n; col++) {
      indices[col] = cm.rowIndices(col);
    }
    return d.runSparse(x, k, n, cm.values(), indices);
  }

  @ParameterizedTest(name = "icAccumDepth {0}")
  @ValueSource(ints = {0, 1})
  void sparse24GemmEqualsDenseGemmOfZeroFilledWeights(int depth) {
    int cols = depth == 0 ? 4 : 3;
    MacArrayConfig a = new MacArrayConfig(4, cols, 32, 4, depth, WeightSparsity.S2_4);
    GemmEngineConfig c = new GemmEngineConfig(a, 16, 64, 12);
    Random rnd = new Random(20 + depth);
    try (Simulator s = MacSim.start(c)) {
      GemmEngineDriver d = new GemmEngineDriver(s, c);
      int[][] shapes = {{4, 8, 4}, {5, 13, 7}, {16, 64, 12}, {1, 2, 1}, {9, 30, 5}, {3, 17, 12}};
      for (int[] sh : shapes) {
        byte[][] x = random(rnd, sh[0], sh[1]);
        byte[][] w = pruned24(rnd, sh[1], sh[2]);
        GemmEngineDriver.Result r = runCompressed(d, x, w);
        String what = "2:4 depth " + depth + " M,K,N = " + sh[0] + "," + sh[1] + "," + sh[2];
        assertMatchesGolden(a, x, w, r, what);
        long[][] dense = IntGemm.exact(x, w);
        for (int i = 0; i < sh[0]; i++) {
          long[] got = new long[sh[2]];
          for (int j = 0; j < sh[2]; j++) {
            got[j] = r.y()[i][j];
          }
          assertArrayEquals(dense[i], got, what + ": dense GEMM of the zero-filled weights, row " + i);
        }
      }
    }
  }

  @org.junit.jupiter.api.Test
  void sparsePassCoversTwiceTheK() {
    MacArrayConfig sparse = new MacArrayConfig(4, 4, 32, 4, 0, WeightSparsity.S2_4);
    MacArrayConfig dense = new MacArrayConfig(4, 4, 32, 4, 0, WeightSparsity.NONE);
    assertEquals(8, sparse.kPerTile());
    assertEquals(16, GemmCycleModel.kTiles(dense, 64));
    assertEquals(8, GemmCycleModel.kTiles(sparse, 64));
    assertEquals(2L * 8 * 16 + 8, GemmCycleModel.cycles(sparse, 16, 64, 8),
        "2 N tiles x 8 K tiles x 16 rows + fill/drain");
    assertEquals(2L * 16 * 16 + 8, GemmCycleModel.cycles(dense, 16, 64, 8));
  }
}
