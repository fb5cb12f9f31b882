package org.llmnpu.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@link EngineRecurrence}: the N-tile pair order of an INT4 stream keeps a GEMM's cycles when its W is in at the
 * start, and takes the column's second N tile along K tile by K tile when the W streams (no tail of its passes after
 * the column's last beat); which GEMMs run in pairs.
 */
class EngineRecurrenceTest {

  @Test
  void pairOrderCostsNothingWhenTheWeightsAreIn() {
    for (int n : new int[] {16, 37, 64}) {
      for (int k : new int[] {16, 172, 512}) {
        assertEquals(EngineRecurrence.cycles(16, 16, 16, 1, (k + 15) / 16, n),
            EngineRecurrence.cycles(16, 16, 16, 1, (k + 15) / 16, n, (nt, kt) -> 0, true), "1x" + k + "x" + n);
      }
    }
  }

  @Test
  void pairOrderFollowsAnInt4ColumnsBeats() {
    // a GEMV of two INT4 beat columns (four N tiles of 64) on a 64x64 array, one beat every 4 cycles (16 GB/s)
    int rows = 64;
    int k = 4096;
    long interval = 4;
    EngineRecurrence.PassReady ready = (nt, kt) -> ((nt / 2) * k + Math.min(k, (kt + 1) * rows) - 1) * interval + 1;
    long kTiles = k / rows;
    long lastBeat = (2L * k - 1) * interval + 1;
    long plain = EngineRecurrence.cycles(rows, rows, 64, 1, kTiles, 4 * rows, ready, false);
    long pairs = EngineRecurrence.cycles(rows, rows, 64, 1, kTiles, 4 * rows, ready, true);
    // plain order: the column's second tile runs its K / rows passes of rows cycles after the last beat
    assertTrue(plain >= lastBeat + k, "plain " + plain);
    // pair order: after the last beat only the last K tile's two passes, the fill and the drain
    assertTrue(pairs <= lastBeat + 2L * rows + 2L * rows, "pairs " + pairs);
  }

  @Test
  void onlyStreamedInt4OfMoreThanOneNTileRunsInPairs() {
    MachineParams p = IsaSimulatorTest.P;
    assertTrue(EngineRecurrence.pairOrder(p, true, p.rows() + 1));
    assertFalse(EngineRecurrence.pairOrder(p, true, p.rows()));
    assertFalse(EngineRecurrence.pairOrder(p, false, 4L * p.rows()));
    assertEquals(1, EngineRecurrence.icAccumDepth(p, true));
    assertEquals(p.icAccumDepth(), EngineRecurrence.icAccumDepth(p, false));
  }
}
