package org.llmnpu.rtl.mac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.llmnpu.rtl.mac.GemmEngineBitExactTest.assertMatchesGolden;
import static org.llmnpu.rtl.mac.GemmEngineBitExactTest.random;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.sim.Simulator;

/**
 * The RTL's cycle count equals {@link GemmCycleModel#cycles} exactly over a sweep of shapes,
 * including ragged ones and arrays where the preload or the swap cannot be hidden
 * ({@code mTile < rows}, {@code mTile < cols}, short last M chunks).
 */
class GemmCycleFormulaTest {

  @Test
  void rtlCyclesEqualTheFormulaWhenPreloadCannotBeHidden() {
    // rows 3 > mTile 2 (weight bus bound) and cols 5 > mTile (swap bound): every stall term is active.
    MacArrayConfig a = new MacArrayConfig(3, 5, 32, 2, 2, WeightSparsity.NONE);
    GemmEngineConfig c = new GemmEngineConfig(a, 9, 12, 11);
    Random rnd = new Random(30);
    int checked = 0;
    long stalled = 0;
    try (Simulator s = MacSim.start(c)) {
      GemmEngineDriver d = new GemmEngineDriver(s, c);
      for (int m = 1; m <= 9; m += 2) {
        for (int k = 1; k <= 12; k += 5) {
          for (int n = 1; n <= 11; n += 4) {
            byte[][] x = random(rnd, m, k);
            byte[][] w = random(rnd, k, n);
            GemmEngineDriver.Result r = d.runDense(x, w);
            assertMatchesGolden(a, x, w, r, "M,K,N = " + m + "," + k + "," + n);
            stalled += r.cycles() - GemmCycleModel.steadyStateCycles(a, m, k, n);
            checked++;
          }
        }
      }
    }
    assertEquals(45, checked);
    assertTrue(stalled > 0, "this array must stall somewhere, else the sweep tests nothing beyond the closed form");
  }

  @Test
  void rtlCyclesEqualTheFormulaOnABalancedArray() {
    MacArrayConfig a = new MacArrayConfig(4, 4, 32, 8, MacArrayConfig.ALL_K_TILES, WeightSparsity.NONE);
    GemmEngineConfig c = new GemmEngineConfig(a, 32, 64, 16);
    Random rnd = new Random(31);
    try (Simulator s = MacSim.start(c)) {
      GemmEngineDriver d = new GemmEngineDriver(s, c);
      int[][] shapes = {{8, 4, 4}, {16, 16, 16}, {32, 64, 16}, {24, 9, 7}, {3, 33, 2}, {31, 1, 13}};
      for (int[] sh : shapes) {
        byte[][] x = random(rnd, sh[0], sh[1]);
        byte[][] w = random(rnd, sh[1], sh[2]);
        GemmEngineDriver.Result r = d.runDense(x, w);
        assertMatchesGolden(a, x, w, r, "M,K,N = " + sh[0] + "," + sh[1] + "," + sh[2]);
        if (sh[0] % 8 == 0) {
          assertEquals(GemmCycleModel.steadyStateCycles(a, sh[0], sh[1], sh[2]), r.cycles(),
              "closed form nTiles·kTiles·M + rows + cols when every chunk is full");
        }
      }
    }
  }

  @Test
  void closedFormEqualsTheRecurrenceWhenChunksCoverTheArray() {
    for (int rows : new int[] {1, 4, 8, 16}) {
      for (int cols : new int[] {1, 4, 16}) {
        int mTile = Math.max(16, Math.max(rows, cols));
        MacArrayConfig a = new MacArrayConfig(rows, cols, 32, mTile, 0, WeightSparsity.NONE);
        for (int m : new int[] {mTile, 3 * mTile}) {
          for (int k : new int[] {1, 17, 512}) {
            for (int n : new int[] {1, 33}) {
              assertEquals(GemmCycleModel.steadyStateCycles(a, m, k, n), GemmCycleModel.cycles(a, m, k, n),
                  rows + "x" + cols + " M,K,N = " + m + "," + k + "," + n);
            }
          }
        }
      }
    }
  }
}
