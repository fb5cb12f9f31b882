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

  /** One run of the master; returns the memory after it, having checked the counts and the read sum. */
  private record Run(Axi4SlaveMemory memory, long cycles) {
  }

  private static Run run(Axi4MemoryConfig config, long base, int beats, int bursts, int outstanding, int size,
                         int burstType, Axi4TestMaster.Fault fault) {
    sim.poke("start", 0);
    sim.poke("cfg_base", base);
    sim.poke("cfg_beats", beats);
    sim.poke("cfg_bursts", bursts);
    sim.poke("cfg_outstanding", outstanding);
    sim.poke("cfg_size", size);
    sim.poke("cfg_burst", burstType);
    sim.poke("cfg_fault", fault.ordinal());
    Axi4SlaveMemory memory = new Axi4SlaveMemory(sim, "m_axi_", 4, config);
    sim.reset(2);
    sim.poke("start", 1);
    memory.tick();
    sim.poke("start", 0);
    long cycles = 1 + memory.runUntil("done", 1, 200_000);
    return new Run(memory, cycles);
  }

  private static Run cleanRun(Axi4MemoryConfig config, long base, int beats, int bursts, int outstanding) {
    Run r = run(config, base, beats, bursts, outstanding, 2, Axi4Burst.INCR, Axi4TestMaster.Fault.NONE);
    int words = beats * bursts;
    byte[] written = r.memory().dump((int) base, 4 * words);
    long sum = 0;
    for (int i = 0; i < words; i++) {
      long expected = 0x1000_0000L + i;
      long actual = (written[4 * i] & 0xFFL) | (written[4 * i + 1] & 0xFFL) << 8 | (written[4 * i + 2] & 0xFFL) << 16
          | (written[4 * i + 3] & 0xFFL) << 24;
      assertEquals(expected, actual, "word " + i + " written");
      sum += expected;
    }
    assertEquals(sum & 0xFFFF_FFFFL, sim.peekLong("readSum"), "sum of the data read back");
    assertEquals(words, sim.peekLong("readBeats"));
    assertEquals(bursts, sim.peekLong("readLasts"));
    assertEquals(0, sim.peekLong("errors"));
    assertEquals(words, r.memory().readBeats());
    assertEquals(words, r.memory().writeBeats());
    return r;
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
      Run r = cleanRun(config, 0x2000 + 0x40 * seed, 4 + (int) seed, 12, 4);
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
    Run fast = cleanRun(Axi4MemoryConfig.ideal(MEMORY), 0x100, beats, bursts, 1);
    Run slow = cleanRun(new Axi4MemoryConfig(MEMORY, 30, 1, 3, 1, 0, false, 1), 0x100, beats, bursts, 1);
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
