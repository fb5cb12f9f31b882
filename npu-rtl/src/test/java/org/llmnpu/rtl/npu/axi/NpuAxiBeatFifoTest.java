package org.llmnpu.rtl.npu.axi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.ToolsForTests;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.verilator.SimModes;

/**
 * {@link NpuAxiBeatFifo} alone in Verilator against a golden FIFO of the same depth (plain Java, below), cycle by
 * cycle: {@code inReady} = fewer than {@code depth} entries at the start of the cycle (a full FIFO refuses a beat even
 * in a cycle its head leaves), {@code outValid} and the head's data, RLAST and error flag equal the golden's, every
 * beat comes out once and in order, and with a beat and a take every cycle one beat a cycle passes through (at depth
 * 1, whose ready is "empty", one every second cycle). Phases of random offer/take rates (back-pressure, full for long stretches, takes on an empty FIFO),
 * random data including all-ones and zero; depths 1 (64-byte lines), 2 (16-byte lines) and 8 (4-byte lines).
 */
class NpuAxiBeatFifoTest {
  private static final int LINE = 4;

  private record Beat(long data, boolean last, boolean error) {
    static Beat random(Random r) {
      return switch (r.nextInt(8)) {
        case 0 -> new Beat(0xFFFF_FFFFL, true, true);
        case 1 -> new Beat(0, false, false);
        default -> new Beat(r.nextLong() & 0xFFFF_FFFFL, r.nextBoolean(), r.nextInt(10) == 0);
      };
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 8})
  void keepsOrderPassesABeatACycleAndRefusesWhenFull(int depth) {
    ToolsForTests.require("verilator");
    Random r = new Random(41 + depth);
    // {offer %, take %, cycles}
    int[][] phases = {{100, 100, 100}, {50, 50, 300}, {90, 20, 200}, {100, 0, 40}, {0, 100, 20}, {30, 90, 200},
        {100, 100, 100}, {70, 70, 300}, {100, 5, 100}};
    try (Simulator sim = SimModes.startLocal(new NpuAxiBeatFifo(LINE, depth))) {
      sim.reset(1);
      Deque<Beat> golden = new ArrayDeque<>();
      long pushed = 0;
      long popped = 0;
      long cycle = 0;
      for (int[] phase : phases) {
        long phasePushes = 0;
        for (int i = 0; i < phase[2]; i++, cycle++) {
          Beat offer = r.nextInt(100) < phase[0] ? Beat.random(r) : null;
          boolean take = r.nextInt(100) < phase[1];
          Beat p = offer != null ? offer : new Beat(0, false, false);
          sim.poke("inValid", offer != null ? 1 : 0);
          sim.poke("inData", p.data());
          sim.poke("inLast", p.last() ? 1 : 0);
          sim.poke("inError", p.error() ? 1 : 0);
          sim.poke("outTake", take ? 1 : 0);
          String at = "depth " + depth + ", cycle " + cycle;
          boolean ready = golden.size() < depth;
          assertEquals(ready ? 1 : 0, sim.peekLong("inReady"), at + " inReady");
          assertEquals(golden.isEmpty() ? 0 : 1, sim.peekLong("outValid"), at + " outValid");
          if (!golden.isEmpty()) {
            Beat head = new Beat(sim.peekLong("outData"), sim.peekLong("outLast") == 1, sim.peekLong("outError") == 1);
            assertEquals(golden.peekFirst(), head, at + " head");
          }
          if (take && !golden.isEmpty()) {
            golden.removeFirst();
            popped++;
          }
          if (offer != null && ready) {
            golden.addLast(offer);
            pushed++;
            phasePushes++;
          }
          sim.step();
        }
        if (phase[0] == 100 && phase[1] == 100) {
          // depth 1: ready is "empty", so a beat every second cycle (the master's one-beat fetch bursts)
          long least = depth == 1 ? phase[2] / 2 - 1 : phase[2] - 2;
          assertTrue(phasePushes >= least, "throughput " + phasePushes + " in " + phase[2] + " cycles");
        }
        if (phase[1] == 0) {
          assertEquals(depth, golden.size(), "no takes: the FIFO fills to its depth");
        }
      }
      assertEquals(pushed, popped + golden.size(), "every stored beat leaves once");
      assertTrue(pushed > (depth == 1 ? 300 : 400), "beats through the FIFO: " + pushed);
    }
  }

  @Test
  void refusesADepthOutsideItsRange() {
    assertThrows(IllegalArgumentException.class, () -> new NpuAxiBeatFifo(LINE, 0));
    assertThrows(IllegalArgumentException.class, () -> new NpuAxiBeatFifo(LINE, 65));
  }
}
