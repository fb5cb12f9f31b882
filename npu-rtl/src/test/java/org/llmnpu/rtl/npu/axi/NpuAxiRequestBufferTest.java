package org.llmnpu.rtl.npu.axi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.ToolsForTests;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.verilator.SimModes;

/**
 * {@link NpuAxiRequestBuffer} alone in Verilator against a golden two-entry FIFO (plain Java, below), cycle by cycle:
 * {@code inReady} = fewer than two entries (a full buffer refuses a request even in a cycle its head leaves),
 * {@code outValid}/{@code empty} and the head's payload (write, address, data, strobes, run hint, gap, fetch flag) equal the
 * golden's, every request comes out once and in order, and with a request and a take every cycle one request a cycle
 * passes through. Phases of random offer/take rates (back-pressure: takes rare; a full buffer for long stretches;
 * takes on an empty buffer; both every cycle), random payloads including all-ones and zero.
 */
class NpuAxiRequestBufferTest {
  private static final int LINE = 4;

  /** One request: the buffer's payload. */
  private record Request(boolean write, long addr, long wdata, long wstrb, long run, long gap, boolean fetch) {
    static Request random(Random r, boolean extreme) {
      if (extreme) {
        boolean ones = r.nextBoolean();
        return ones ? new Request(true, 0xFFFF_FFFFL, 0xFFFF_FFFFL, 0xF, 0xFFFF, 63, true)
            : new Request(false, 0, 0, 0, 0, 0, false);
      }
      return new Request(r.nextBoolean(), r.nextLong() & 0xFFFF_FFFFL, r.nextLong() & 0xFFFF_FFFFL, r.nextInt(16),
          r.nextInt(1 << 16), r.nextInt(64), r.nextBoolean());
    }
  }

  /** The golden: a FIFO of two entries whose ready is "not full" at the start of the cycle. */
  private static final class Golden {
    final Deque<Request> entries = new ArrayDeque<>();

    boolean ready() {
      return entries.size() < 2;
    }

    /** One clock edge; returns whether the offered request was stored. */
    boolean clock(Request offered, boolean take) {
      boolean push = offered != null && ready();
      if (take && !entries.isEmpty()) {
        entries.removeFirst();
      }
      if (push) {
        entries.addLast(offered);
      }
      return push;
    }
  }

  @Test
  void keepsOrderTakesARequestACycleAndBackPressuresWhenFull() {
    ToolsForTests.require("verilator");
    Random r = new Random(37);
    // {offer %, take %, cycles}: steady state a cycle, random, back-pressure, full for long, drain, empty takes
    int[][] phases = {{100, 100, 200}, {50, 50, 400}, {90, 20, 300}, {100, 0, 50}, {0, 100, 20}, {0, 100, 30},
        {30, 90, 300}, {100, 100, 100}, {70, 70, 400}, {100, 5, 200}, {5, 100, 100}};
    try (Simulator sim = SimModes.startLocal(new NpuAxiRequestBuffer(LINE))) {
      sim.reset(1);
      Golden golden = new Golden();
      long pushed = 0;
      long popped = 0;
      long cycle = 0;
      for (int[] phase : phases) {
        long phasePushes = 0;
        for (int i = 0; i < phase[2]; i++, cycle++) {
          Request offer = r.nextInt(100) < phase[0] ? Request.random(r, r.nextInt(8) == 0) : null;
          boolean take = r.nextInt(100) < phase[1];
          poke(sim, offer, take);
          String at = "cycle " + cycle;
          assertEquals(golden.ready() ? 1 : 0, sim.peekLong("inReady"), at + " inReady");
          assertEquals(golden.entries.isEmpty() ? 0 : 1, sim.peekLong("outValid"), at + " outValid");
          assertEquals(golden.entries.isEmpty() ? 1 : 0, sim.peekLong("empty"), at + " empty");
          if (!golden.entries.isEmpty()) {
            Request head = golden.entries.peekFirst();
            assertEquals(head, peekHead(sim), at + " head");
            popped += take ? 1 : 0;
          }
          boolean stored = golden.clock(offer, take);
          pushed += stored ? 1 : 0;
          phasePushes += stored ? 1 : 0;
          sim.step();
        }
        if (phase[0] == 100 && phase[1] == 100) {
          // a request and a take every cycle: one request a cycle (the first cycles may fill or drain it)
          assertTrue(phasePushes >= phase[2] - 2, "throughput " + phasePushes + " in " + phase[2] + " cycles");
        }
        if (phase[1] == 0) {
          assertEquals(2, golden.entries.size(), "no takes: the buffer fills to two entries");
        }
      }
      assertEquals(pushed, popped + golden.entries.size(), "every stored request leaves once");
      assertTrue(pushed > 500, "requests through the buffer: " + pushed);
    }
  }

  private static void poke(Simulator sim, Request offer, boolean take) {
    Request p = offer != null ? offer : new Request(false, 0, 0, 0, 0, 0, false);
    sim.poke("inValid", offer != null ? 1 : 0);
    sim.poke("inWrite", p.write() ? 1 : 0);
    sim.poke("inAddr", p.addr());
    sim.poke("inWdata", p.wdata());
    sim.poke("inWstrb", p.wstrb());
    sim.poke("inRun", p.run());
    sim.poke("inGap", p.gap());
    sim.poke("inFetch", p.fetch() ? 1 : 0);
    sim.poke("outTake", take ? 1 : 0);
  }

  private static Request peekHead(Simulator sim) {
    return new Request(sim.peekLong("outWrite") == 1, sim.peekLong("outAddr"), sim.peekLong("outWdata"),
        sim.peekLong("outWstrb"), sim.peekLong("outRun"), sim.peekLong("outGap"), sim.peekLong("outFetch") == 1);
  }
}
