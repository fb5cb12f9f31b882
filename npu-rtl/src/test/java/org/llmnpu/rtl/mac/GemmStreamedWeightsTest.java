package org.llmnpu.rtl.mac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.verilator.Simulators;
import org.llmnpu.isa.CycleFormulas;
import org.llmnpu.isa.EngineRecurrence;

/**
 * {@link GemmEngine#withWeightStream} alone in Verilator: with its scoreboard ports showing N tile nt from engine
 * cycle {@code R_nt} (random, increasing), the results are the golden GEMM's and the cycles are the recurrence
 * with {@code P_j ≥ R_j} ({@code CycleFormulas.engineCyclesOverKTiles} with a {@code PassReady}); with every tile in
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
        Run run = run(d, rnd, sh, false);
        assertGolden(a, run);
        long expected = CycleFormulas.engineCyclesOverKTiles(4, 4, 8, m, (k + 3) / 4, n,
            (nt, kt) -> run.ready()[(int) nt]);
        assertEquals(expected, run.result().cycles(), run.what());
        delayed += expected - CycleFormulas.engineCycles(4, 4, 8, m, k, n);
        GemmEngineDriver.Result all = d.runDenseStreamed(run.x(), run.w(), new long[run.ready().length]);
        GemmEngineBitExactTest.assertMatchesGolden(a, run.x(), run.w(), all, run.what() + ", every tile in at start");
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
          Run run = run(d, rnd, sh, true);
          assertGolden(run.ready().length > 1 ? single : a, run);
          long expected = EngineRecurrence.cycles(4, 4, 8, sh[0], (sh[1] + 3) / 4, sh[2],
              (nt, kt) -> run.ready()[(int) nt], true);
          assertEquals(expected, run.result().cycles(), "depth " + depth + ", " + run.what());
        }
      }
    }
  }

  /**
   * X copied while the engine runs (as the NPU's streamed GEMM does: line {@code kt·M + m} in the cycle {@code kt·M + m}
   * from the start, {@code xKTiles} counting the K tiles in; the buffer held other words before): the results are the
   * golden GEMM's, so no pass read a K tile before its copy, and the cycles are the recurrence with
   * {@code R_j = max(W tile in, (kt + 1)·M − 1)} — exactly, so a loader that started a pass a cycle before its K tile
   * was in (or one that waited a cycle longer) fails. Random shapes with ragged K and N, K past one tile, one and
   * several M chunks, W in at the start or later; the plain order and the INT4 pair order.
   */
  @Test
  void passesWaitForTheirKTilesOfXCopiedBesideTheRun() {
    MacArrayConfig a = new MacArrayConfig(4, 4, 32, 8, MacArrayConfig.ALL_K_TILES, WeightSparsity.NONE);
    GemmEngineConfig c = new GemmEngineConfig(a, 32, 64, 24);
    Random rnd = new Random(29);
    long xBound = 0;
    try (Simulator s = Simulators.start(Verilog.emit(GemmEngine.withWeightStream(c)), MacSim.options())) {
      s.reset(2);
      GemmEngineDriver d = new GemmEngineDriver(s, c);
      for (int i = 0; i < 14; i++) {
        int m = i == 0 ? 1 : i == 1 ? 32 : 1 + rnd.nextInt(32);
        int k = i == 2 ? 64 : i == 3 ? 3 : 1 + rnd.nextInt(64);
        int n = i == 4 ? 1 : 1 + rnd.nextInt(24);
        boolean pairs = i % 3 == 2;
        byte[][] x = GemmEngineBitExactTest.random(rnd, m, k);
        byte[][] w = GemmEngineBitExactTest.random(rnd, k, n);
        long[] ready = new long[(n + 3) / 4];
        long at = i % 2 == 0 ? 0 : rnd.nextInt(20);
        for (int t = 0; t < ready.length; t++) {
          if (i % 2 == 1 && (!pairs || t % 2 == 0)) {
            at += rnd.nextInt(40);
          }
          ready[t] = at;
        }
        String what = "M,K,N = " + m + "," + k + "," + n + (pairs ? ", pair order" : "");
        GemmEngineDriver.Result r = d.runDenseStreamedWithX(x, w, ready, pairs, rnd.nextLong());
        Run run = new Run(x, w, ready, r, what);
        MacArrayConfig single = new MacArrayConfig(4, 4, 32, 8, 1, WeightSparsity.NONE);
        assertGolden(pairs && ready.length > 1 ? single : a, run);
        EngineRecurrence.PassReady wOnly = (nt, kt) -> ready[(int) nt];
        EngineRecurrence.PassReady withX = (nt, kt) -> Math.max(ready[(int) nt], (kt + 1) * m - 1);
        long expected = EngineRecurrence.cycles(4, 4, 8, m, (k + 3) / 4, n, withX, pairs);
        assertEquals(expected, r.cycles(), what);
        xBound += expected - EngineRecurrence.cycles(4, 4, 8, m, (k + 3) / 4, n, wOnly, pairs);
      }
    }
    assertTrue(xBound > 0, "some passes must wait for their K tile's X");
  }

  /** One streamed run: its operands, the cycles its N tiles were in from, the engine's result. */
  private record Run(byte[][] x, byte[][] w, long[] ready, GemmEngineDriver.Result result, String what) {
  }

  /**
   * A random GEMM of {@code shape} (M, K, N) whose N tiles are in from random non-decreasing cycles — with
   * {@code pairs} two tiles at a time (an INT4 beat column brings both) and the passes in pair order.
   */
  private static Run run(GemmEngineDriver d, Random rnd, int[] shape, boolean pairs) {
    byte[][] x = GemmEngineBitExactTest.random(rnd, shape[0], shape[1]);
    byte[][] w = GemmEngineBitExactTest.random(rnd, shape[1], shape[2]);
    long[] ready = new long[(shape[2] + 3) / 4];
    long at = rnd.nextInt(20);
    for (int t = 0; t < ready.length; t++) {
      if (!pairs || t % 2 == 0) {
        at += rnd.nextInt(pairs ? 80 : 60);
      }
      ready[t] = at;
    }
    return new Run(x, w, ready, d.runDenseStreamed(x, w, ready, pairs),
        "M,K,N = " + shape[0] + "," + shape[1] + "," + shape[2]);
  }

  /** The run's results and psum traffic are the golden tiled GEMM's with {@code a}'s grouping. */
  private static void assertGolden(MacArrayConfig a, Run run) {
    org.llmnpu.numerics.gemm.TiledGemm.Result g = org.llmnpu.numerics.gemm.TiledGemm.run(
        GemmEngineBitExactTest.golden(a), run.x(), run.w());
    for (int i = 0; i < run.x().length; i++) {
      org.junit.jupiter.api.Assertions.assertArrayEquals(g.y()[i], run.result().y()[i], run.what() + ": row " + i);
    }
    assertEquals(g.psumWritebacks(), run.result().psumWritebacks(), run.what() + ": psum write-backs");
    assertEquals(g.psumReadbacks(), run.result().psumReadbacks(), run.what() + ": psum read-backs");
  }
}
