package org.llmnpu.verilator.axi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.llmnpu.hdl.sim.Simulator;

/** Runs of {@link Axi4TestMaster} against {@link Axi4SlaveMemory}, for the tests and the coverage benchmark. */
public final class Axi4MasterRuns {
  private Axi4MasterRuns() {
  }

  /** A finished run: the memory after it and the cycles from start to done. */
  public record Run(Axi4SlaveMemory memory, long cycles) {
  }

  /** Configures the master by its ports, resets it, starts it and ticks the memory until done. */
  public static Run run(Simulator sim, Axi4MemoryConfig config, long base, int beats, int bursts, int outstanding,
                        int size, int burstType, Axi4TestMaster.Fault fault) {
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

  /** A run of a rule-abiding master, checking the memory written, the read sum and the counts. */
  public static Run cleanRun(Simulator sim, Axi4MemoryConfig config, long base, int beats, int bursts, int outstanding) {
    Run r = run(sim, config, base, beats, bursts, outstanding, 2, Axi4Burst.INCR, Axi4TestMaster.Fault.NONE);
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
}
