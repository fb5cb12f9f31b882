package org.llmnpu.rtl.npu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.ToolsForTests;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.verilator.SimModes;

/**
 * The {@link NpuWatchdog} unit alone in Verilator against its cycle formula: {@code expired} is high exactly when
 * the last {@code watchdogCycles} cycles (and no more) were all spent in a memory-waiting state without progress (no request
 * accepted, no response, no PPM item, the same state as the cycle before), under random states and events.
 */
class NpuWatchdogTest {
  private static final int[] WAITING = {Npu.State.FETCH.ordinal(), Npu.State.LOAD.ordinal(),
      Npu.State.STORE.ordinal(), Npu.State.LOAD4.ordinal(), Npu.State.DSP_TAB.ordinal(), Npu.State.DSP_PROG.ordinal(),
      Npu.State.SNAPSHOT.ordinal(), Npu.State.PPM_LOAD.ordinal()};

  @Test
  void expiresAfterWatchdogCyclesOfWaitingWithoutProgress() {
    ToolsForTests.require("verilator");
    NpuConfig c = NpuConfig.small().withMemory(3, 4);
    int limit = c.watchdogCycles();
    Random r = new Random(5);
    try (Simulator sim = SimModes.startLocal(new NpuWatchdog(c))) {
      sim.reset(1);
      int previousState = 0;
      int idle = 0;
      int expiries = 0;
      for (int cycle = 0; cycle < 20 * limit; cycle++) {
        // long quiet stretches in one waiting state, with a rare event or state change
        int state = r.nextInt(4 * limit) == 0 ? r.nextInt(Npu.State.values().length) : r.nextInt(4 * limit) == 1
            ? WAITING[r.nextInt(WAITING.length)] : previousState == 0 ? WAITING[0] : previousState;
        boolean event = r.nextInt(3 * limit) == 0;
        sim.poke("state", state);
        sim.poke("ctrlFire", event && r.nextBoolean() ? 1 : 0);
        sim.poke("fetchFire", 0);
        sim.poke("response", event ? 1 : 0);
        sim.poke("ppmItem", 0);
        // WAIT counts as a memory wait only while a W stream runs
        boolean streaming = state == Npu.State.WAIT.ordinal() && r.nextInt(8) != 0;
        sim.poke("streaming", streaming ? 1 : 0);
        assertEquals(idle == limit ? 1 : 0, sim.peekLong("expired"), "cycle " + cycle);
        expiries += idle == limit ? 1 : 0;
        boolean waiting = java.util.Arrays.stream(WAITING).anyMatch(s -> s == state) || streaming;
        boolean progress = event || state != previousState;
        // the count wraps at its width (the controller halts at the limit, so it never gets there)
        idle = progress || !waiting ? 0 : (idle + 1) % (1 << org.llmnpu.hdl.Hw.bitsToHold(limit));
        sim.step();
        previousState = state;
      }
      assertEquals(true, expiries > 0, "the random stretches reach the limit");
    }
  }
}
