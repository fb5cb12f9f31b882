package org.llmnpu.rtl.mac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.llmnpu.rtl.mac.GemmEngineBitExactTest.assertMatchesGolden;
import static org.llmnpu.rtl.mac.GemmEngineBitExactTest.filled;
import static org.llmnpu.rtl.mac.GemmEngineBitExactTest.random;

import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.llmnpu.hdl.sim.Simulator;

/**
 * Extended IC accumulation with icAccumDepth 1 (baseline: every K tile written back and read
 * back) and 2, on narrow saturating accumulators: bit exact with the golden model, write-back
 * and read-back counters equal to {@code (ceil(kTiles / depth) − 1) · M · N}.
 */
class GemmIcAccumulationTest {

  @ParameterizedTest(name = "icAccumDepth {0}")
  @ValueSource(ints = {1, 2})
  void partialSumsTravelAsTheDepthSaysAndResultsStayBitExact(int depth) {
    int accWidth = depth == 1 ? 16 : 20;
    MacArrayConfig a = new MacArrayConfig(4, 4, accWidth, 4, depth, WeightSparsity.NONE);
    GemmEngineConfig c = new GemmEngineConfig(a, 16, 64, 12);
    Random rnd = new Random(10 + depth);
    try (Simulator s = MacSim.start(c)) {
      GemmEngineDriver d = new GemmEngineDriver(s, c);
      int[][] shapes = {{4, 16, 4}, {7, 13, 9}, {16, 64, 12}, {1, 5, 1}, {5, 8, 4}, {9, 20, 6}};
      for (int[] sh : shapes) {
        byte[][] x = random(rnd, sh[0], sh[1]);
        byte[][] w = random(rnd, sh[1], sh[2]);
        GemmEngineDriver.Result r = d.runDense(x, w);
        assertMatchesGolden(a, x, w, r, "depth " + depth + " M,K,N = " + sh[0] + "," + sh[1] + "," + sh[2]);
        long kTiles = (sh[1] + 3) / 4;
        long groups = (kTiles + depth - 1) / depth;
        assertEquals((groups - 1) * sh[0] * sh[2], r.psumWritebacks());
      }
    }
  }

  @ParameterizedTest(name = "icAccumDepth {0}")
  @ValueSource(ints = {1, 2})
  void accumulatorSaturatesWithAStickyFlag(int depth) {
    int accWidth = depth == 1 ? 16 : 20;
    MacArrayConfig a = new MacArrayConfig(4, 4, accWidth, 4, depth, WeightSparsity.NONE);
    GemmEngineConfig c = new GemmEngineConfig(a, 16, 64, 12);
    long max = (1L << (accWidth - 1)) - 1;
    try (Simulator s = MacSim.start(c)) {
      GemmEngineDriver d = new GemmEngineDriver(s, c);
      byte[][] x = filled(6, 64, (byte) -128);
      byte[][] w = filled(64, 5, (byte) -128);
      GemmEngineDriver.Result r = d.runDense(x, w);
      assertMatchesGolden(a, x, w, r, "all -128, accWidth " + accWidth);
      assertTrue(r.overflow(), "sticky overflow flag");
      assertEquals(max, r.y()[5][4], "clamped to the largest " + accWidth + "-bit value");
      byte[][] negW = filled(64, 5, (byte) 127);
      GemmEngineDriver.Result neg = d.runDense(x, negW);
      assertMatchesGolden(a, x, negW, neg, "-128 x 127");
      assertEquals(-max - 1, neg.y()[0][0], "clamped to the smallest value");
      byte[][] small = filled(3, 4, (byte) 1);
      GemmEngineDriver.Result clean = d.runDense(small, filled(4, 2, (byte) 1));
      assertFalse(clean.overflow(), "the flag is cleared by the next start");
      assertEquals(4, clean.y()[2][1]);
    }
  }
}
