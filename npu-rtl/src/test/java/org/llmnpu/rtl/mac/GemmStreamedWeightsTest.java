package org.llmnpu.rtl.mac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.verilator.Simulators;
import org.llmnpu.isa.CycleModel;
import org.llmnpu.isa.EngineRecurrence;

/**
 * {@link GemmEngine#withWeightStream} alone in Verilator: with its scoreboard ports showing N tile nt from engine
 * cycle {@code R_nt} (random, increasing), the results are the golden GEMM's and the cycles are the recurrence
 * with {@code P_j ≥ R_j} ({@code CycleModel.engineCyclesOverKTiles} with a {@code PassReady}); with every tile in
 * at start, the plain engine's cycles.
 */
class GemmStreamedWeightsTest {

  @Test
  void passesWaitForTheirTilesAndTheCyclesFollowTheRecurrence() {
    MacArrayConfig a = new MacArrayConfig(4, 4, 32, 8, MacArrayConfig.ALL_K_TILES, WeightSparsity.NONE);
    GemmEngineConfig c = new GemmEngineConfig(a, 32, 64, 16);
    Random rnd = new Random(19);
    long delayed = 0;
    try (Simulator s = Simulators.start(Verilog.emit(GemmEngine.withWeightStream(c)), MacSim.options())) {
      s.reset(2);
      GemmEngineDriver d = new GemmEngineDriver(s, c);
      int[][] shapes = {{1, 64, 16}, {9, 33, 13}, {20, 7, 16}, {3, 64, 5}, {32, 17, 9}};
      for (int[] sh : shapes) {
        int m = sh[0];
        int k = sh[1];
        int n = sh[2];
        byte[][] x = GemmEngineBitExactTest.random(rnd, m, k);
        byte[][] w = GemmEngineBitExactTest.random(rnd, k, n);
        int nTiles = (n + 3) / 4;
        long[] ready = new long[nTiles];
        long at = rnd.nextInt(20);
        for (int t = 0; t < nTiles; t++) {
          at += rnd.nextInt(60);
          ready[t] = at;
        }
        GemmEngineDriver.Result r = d.runDenseStreamed(x, w, ready);
        String what = "M,K,N = " + m + "," + k + "," + n;
        org.llmnpu.numerics.gemm.TiledGemm.Result g = org.llmnpu.numerics.gemm.TiledGemm.run(
            GemmEngineBitExactTest.golden(a), x, w);
        for (int i = 0; i < m; i++) {
          org.junit.jupiter.api.Assertions.assertArrayEquals(g.y()[i], r.y()[i], what + ": row " + i);
        }
        assertEquals(g.psumWritebacks(), r.psumWritebacks(), what + ": psum write-backs");
        long expected = CycleModel.engineCyclesOverKTiles(4, 4, 8, m, (k + 3) / 4, n, (nt, kt) -> ready[(int) nt]);
        assertEquals(expected, r.cycles(), what);
        delayed += expected - CycleModel.engineCycles(4, 4, 8, m, k, n);
        GemmEngineDriver.Result all = d.runDenseStreamed(x, w, new long[nTiles]);
        GemmEngineBitExactTest.assertMatchesGolden(a, x, w, all, what + ", every tile in at start");
      }
    }
    assertTrue(delayed > 0, "some passes must wait for their tiles");
  }

  /**
   * With {@code wPairOrder} (an INT4 stream: a beat column holds N tiles 2c and 2c + 1, in at the same cycle) the
   * passes go pair, M chunk, K tile, N tile of the pair, each its own group: results bit-exact, psum traffic the
   * golden's with one K tile a group, cycles the recurrence in pair order ({@code EngineRecurrence.cycles} with
   * {@code pairs}); shapes with an odd N-tile count, ragged N, several M chunks, icAccumDepth 2 and all.
   */
  @Test
  void pairOrderInterleavesAColumnsTwoTilesKTileByKTile() {
    Random rnd = new Random(23);
    for (int depth : new int[] {MacArrayConfig.ALL_K_TILES, 2}) {
      MacArrayConfig a = new MacArrayConfig(4, 4, 32, 8, depth, WeightSparsity.NONE);
      GemmEngineConfig c = new GemmEngineConfig(a, 32, 64, 24);
      MacArrayConfig single = new MacArrayConfig(4, 4, 32, 8, 1, WeightSparsity.NONE);
      try (Simulator s = Simulators.start(Verilog.emit(GemmEngine.withWeightStream(c)), MacSim.options())) {
        s.reset(2);
        GemmEngineDriver d = new GemmEngineDriver(s, c);
        int[][] shapes = {{1, 64, 16}, {1, 37, 23}, {20, 9, 16}, {9, 33, 12}, {3, 64, 4}};
        for (int[] sh : shapes) {
          int m = sh[0];
          int k = sh[1];
          int n = sh[2];
          byte[][] x = GemmEngineBitExactTest.random(rnd, m, k);
          byte[][] w = GemmEngineBitExactTest.random(rnd, k, n);
          int nTiles = (n + 3) / 4;
          long[] ready = new long[nTiles];
          long at = rnd.nextInt(20);
          for (int t = 0; t < nTiles; t += 2) {
            at += rnd.nextInt(80);
            ready[t] = at;
            if (t + 1 < nTiles) {
              ready[t + 1] = at;
            }
          }
          GemmEngineDriver.Result r = d.runDenseStreamed(x, w, ready, true);
          String what = "depth " + depth + ", M,K,N = " + m + "," + k + "," + n;
          boolean pairs = nTiles > 1;
          org.llmnpu.numerics.gemm.TiledGemm.Result g = org.llmnpu.numerics.gemm.TiledGemm.run(
              GemmEngineBitExactTest.golden(pairs ? single : a), x, w);
          for (int i = 0; i < m; i++) {
            org.junit.jupiter.api.Assertions.assertArrayEquals(g.y()[i], r.y()[i], what + ": row " + i);
          }
          assertEquals(g.psumWritebacks(), r.psumWritebacks(), what + ": psum write-backs");
          assertEquals(g.psumReadbacks(), r.psumReadbacks(), what + ": psum read-backs");
          long expected = EngineRecurrence.cycles(4, 4, 8, m, (k + 3) / 4, n, (nt, kt) -> ready[(int) nt], true);
          assertEquals(expected, r.cycles(), what);
        }
      }
    }
  }
}
