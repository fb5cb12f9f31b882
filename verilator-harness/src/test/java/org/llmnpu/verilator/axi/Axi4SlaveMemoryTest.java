package org.llmnpu.verilator.axi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.verilator.SimModes;
import org.llmnpu.verilator.axi.Axi4ProtocolChecker.Rule;

/**
 * The AXI4 memory model against a hw-dsl AXI4 master in Verilator: data written and read back bit for bit
 * under latency, bandwidth limits, random back-pressure and read reordering; the latency and bandwidth bounds;
 * and every checker rule firing on a master that breaks it on purpose. One model serves all runs (the master
 * is configured by its input ports; each run resets it).
 */
class Axi4SlaveMemoryTest {
  private static final int MEMORY = 64 * 1024;
  private static Simulator sim;

  @BeforeAll
  static void start() {
    sim = SimModes.startLocal(new Axi4TestMaster());
  }

  @AfterAll
  static void stop() {
    if (sim != null) {
      sim.close();
    }
  }

  private static Axi4MasterRuns.Run run(Axi4MemoryConfig config, long base, int beats, int bursts, int outstanding,
                                        int size, int burstType, Axi4TestMaster.Fault fault) {
    return Axi4MasterRuns.run(sim, config, base, beats, bursts, outstanding, size, burstType, fault);
  }

  private static Axi4MasterRuns.Run cleanRun(Axi4MemoryConfig config, long base, int beats, int bursts,
                                             int outstanding) {
    return Axi4MasterRuns.cleanRun(sim, config, base, beats, bursts, outstanding);
  }

  @Test
  void idealMemoryServesIncrBurstsWithSeveralReadsOutstanding() {
    cleanRun(Axi4MemoryConfig.ideal(MEMORY), 0x100, 16, 6, 4);
    cleanRun(Axi4MemoryConfig.ideal(MEMORY), 0x1000, 256, 2, 2);  // the longest INCR burst, up to a 4 KiB page end
  }

  @Test
  void backPressureLatencyAndReorderingKeepTheDataExact() {
    for (long seed = 1; seed <= 3; seed++) {
      Axi4MemoryConfig config = new Axi4MemoryConfig(MEMORY, 12, 5, 1, 4, 0.4, true, seed);
      Axi4MasterRuns.Run r = cleanRun(config, 0x2000 + 0x40 * seed, 4 + (int) seed, 12, 4);
      assertTrue(r.memory().readsOutOfOrder() > 0, "reads of different IDs answered out of order, seed " + seed);
      var checks = r.memory().checker().checks();
      assertTrue(checks.get(Rule.VALID_DROPPED) > 0 && checks.get(Rule.PAYLOAD_CHANGED) > 0,
          "back-pressure made the master wait: " + checks);
      assertTrue(checks.get(Rule.WLAST_MISSING) == 12L * (4 + seed), checks.toString());
    }
  }

  @Test
  void latencyAndBandwidthBoundTheRunTime() {
    int beats = 8;
    int bursts = 4;
    Axi4MasterRuns.Run fast = cleanRun(Axi4MemoryConfig.ideal(MEMORY), 0x100, beats, bursts, 1);
    Axi4MasterRuns.Run slow = cleanRun(new Axi4MemoryConfig(MEMORY, 30, 1, 3, 1, 0, false, 1), 0x100, beats, bursts, 1);
    // one read in flight: each burst waits its latency, then its beats at one per 3 cycles at best; writes too
    long lowerBound = bursts * (30 + 3L * (beats - 1) + 1) + 3L * beats * bursts - 2;
    assertTrue(slow.cycles() >= lowerBound, slow.cycles() + " cycles < bound " + lowerBound);
    assertTrue(slow.cycles() > fast.cycles() + bursts * 29, slow.cycles() + " vs " + fast.cycles());
  }

  @Test
  void everyRuleFiresOnAMasterThatBreaksIt() {
    Axi4MemoryConfig pressing = new Axi4MemoryConfig(MEMORY, 2, 1, 1, 4, 0.5, false, 7);
    Axi4MemoryConfig ideal = Axi4MemoryConfig.ideal(MEMORY);
    Set<Rule> fired = EnumSet.noneOf(Rule.class);
    fired.add(violation(pressing, 0x100, 4, 4, 2, 1, Axi4TestMaster.Fault.DROP_ARVALID, Rule.VALID_DROPPED));
    fired.add(violation(pressing, 0x100, 4, 4, 2, 1, Axi4TestMaster.Fault.CHANGE_ARADDR, Rule.PAYLOAD_CHANGED));
    fired.add(violation(ideal, 0x1000 - 32, 16, 1, 2, 1, Axi4TestMaster.Fault.NONE, Rule.BURST_CROSSES_4KB));
    fired.add(violation(ideal, 0x100, 257, 1, 2, 1, Axi4TestMaster.Fault.NONE, Rule.LEN_TOO_LONG));
    violation(ideal, 0x100, 17, 1, 2, Axi4Burst.FIXED, Axi4TestMaster.Fault.NONE, Rule.LEN_TOO_LONG);
    fired.add(violation(ideal, 0x100, 4, 1, 3, 1, Axi4TestMaster.Fault.NONE, Rule.SIZE_TOO_WIDE));
    fired.add(violation(ideal, 0x100, 4, 1, 2, 3, Axi4TestMaster.Fault.NONE, Rule.BURST_RESERVED));
    fired.add(violation(ideal, 0x102, 4, 1, 2, Axi4Burst.WRAP, Axi4TestMaster.Fault.NONE, Rule.WRAP_UNALIGNED));
    fired.add(violation(ideal, 0x100, 4, 2, 2, 1, Axi4TestMaster.Fault.WLAST_EARLY, Rule.WLAST_EARLY));
    fired.add(violation(ideal, 0x100, 4, 2, 2, 1, Axi4TestMaster.Fault.WLAST_MISSING, Rule.WLAST_MISSING));
    assertEquals(EnumSet.allOf(Rule.class), fired, "every rule has a test that breaks it");
  }

  private static Rule violation(Axi4MemoryConfig config, long base, int beats, int bursts, int size, int burstType,
                                Axi4TestMaster.Fault fault, Rule expected) {
    var e = assertThrows(Axi4ProtocolViolation.class, () -> run(config, base, beats, bursts, 4, size, burstType,
        fault));
    assertEquals(expected, e.rule(), e.getMessage());
    return e.rule();
  }
}
