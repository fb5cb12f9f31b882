package org.llmnpu.rtl.npu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigInteger;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.llmnpu.hdl.ToolsForTests;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.isa.Counter;
import org.llmnpu.verilator.SimModes;

/**
 * The {@link NpuCounters} unit alone in Verilator against its specification: under random events (amounts up to
 * 2^47, so the split low/high parts carry and the counts wrap at 2^48; random clears), every counter read on
 * {@code value} ({@code select} random each cycle) and in the {@code values} image is the sum of its events'
 * amounts since the last clear, modulo 2^48, in the cycle after the events.
 */
class NpuCountersTest {
  private static final long MASK = (1L << NpuCounters.BITS) - 1;

  @ParameterizedTest(name = "weightRowsPerCycle {0}")
  @ValueSource(ints = {1, 4})
  void everyCounterIsTheSumOfItsEventsSinceTheLastClear(int weightRowsPerCycle) {
    ToolsForTests.require("verilator");
    NpuConfig c = NpuConfig.small().withWeightRowsPerCycle(weightRowsPerCycle);
    int line = c.machine().lineBytes();
    long[] expected = new long[Counter.values().length];
    Random r = new Random(31 + weightRowsPerCycle);
    try (Simulator sim = SimModes.startLocal(new NpuCounters(c))) {
      sim.reset(1);
      for (int cycle = 0; cycle < 3000; cycle++) {
        int sel = r.nextInt(Counter.values().length);
        sim.poke("select", sel);
        assertEquals(expected[sel], sim.peekLong("value"), "cycle " + cycle + ": " + Counter.values()[sel]);
        if (cycle % 97 == 0) {
          BigInteger image = sim.peek("values");
          for (Counter k : Counter.values()) {
            assertEquals(expected[k.ordinal()], image.shiftRight(NpuCounters.BITS * k.ordinal()).longValue() & MASK,
                "cycle " + cycle + ": values image of " + k);
          }
        }
        boolean clear = r.nextInt(500) == 0;
        sim.poke("clear", clear ? 1 : 0);
        long[] add = new long[expected.length];
        boolean partial = flip(sim, r, "partialBeat");
        int remainder = r.nextInt(line);
        sim.poke("remainder", remainder);
        long bytes = partial ? remainder : line;
        add[Counter.CYCLES.ordinal()] += flip(sim, r, "busy") ? 1 : 0;
        add[Counter.COMMANDS.ordinal()] += flip(sim, r, "decode") ? 1 : 0;
        add[Counter.DMA_LOAD_BYTES.ordinal()] += flip(sim, r, "loadBeat") ? bytes : 0;
        add[Counter.DMA_STORE_BYTES.ordinal()] += flip(sim, r, "storeBeat") ? bytes : 0;
        add[Counter.EXT_READ_BEATS.ordinal()] += (flip(sim, r, "readBeat") ? 1 : 0)
            + (flip(sim, r, "fetchRead") ? 1 : 0);
        add[Counter.EXT_WRITE_BEATS.ordinal()] += flip(sim, r, "writeBeat") ? 1 : 0;
        long macs = amount(r, 47);
        long dense = amount(r, 47);
        sim.poke("macs", macs);
        sim.poke("denseMacs", dense);
        boolean start = flip(sim, r, "gemmStart");
        add[Counter.MACS.ordinal()] += start ? macs : 0;
        add[Counter.DENSE_MACS.ordinal()] += start ? dense : 0;
        long psums = amount(r, 32);
        sim.poke("psumWritebacks", psums);
        add[Counter.PSUM_WRITEBACKS.ordinal()] += flip(sim, r, "drainStart") ? psums : 0;
        add[Counter.SPAD_READS.ordinal()] += (flip(sim, r, "spadRead") ? 1 : 0) + (flip(sim, r, "drainRead") ? 1 : 0);
        if (weightRowsPerCycle > 1) {
          int lines = 1 + r.nextInt(weightRowsPerCycle);
          sim.poke("weightLines", lines);
          add[Counter.SPAD_READS.ordinal()] += flip(sim, r, "weightCopy") ? lines : 0;
        }
        add[Counter.SPAD_WRITES.ordinal()] += (flip(sim, r, "spadWrite") ? 1 : 0) + (flip(sim, r, "backWrite") ? 1 : 0);
        add[Counter.FETCH_CYCLES.ordinal()] += flip(sim, r, "fetchCycle") ? 1 : 0;
        add[Counter.DMA_CYCLES.ordinal()] += flip(sim, r, "dmaCycle") ? 1 : 0;
        add[Counter.GEMM_CYCLES.ordinal()] += flip(sim, r, "gemmCycle") ? 1 : 0;
        add[Counter.ARRAY_CYCLES.ordinal()] += flip(sim, r, "arrayCycle") ? 1 : 0;
        add[Counter.MEM_STALL_CYCLES.ordinal()] += flip(sim, r, "memStall") ? 1 : 0;
        add[Counter.DSP_INSTRUCTIONS.ordinal()] += flip(sim, r, "dspInstruction") ? 1 : 0;
        int chunk = 1 + r.nextInt(Math.min(c.machine().lineBytes(), c.machine().dsp().lanes()));
        sim.poke("dspElements", chunk);
        add[Counter.DSP_ELEMENTS.ordinal()] += flip(sim, r, "dspElement") ? chunk : 0;
        add[Counter.DSP_CYCLES.ordinal()] += flip(sim, r, "dspCycle") ? 1 : 0;
        int lanes = r.nextInt(c.machine().ppmChannels() + 1);
        sim.poke("ppmLanes", lanes);
        add[Counter.PPM_ELEMENTS.ordinal()] += flip(sim, r, "ppmRow") ? lanes : 0;
        int resultLanes = r.nextInt(c.machine().ppmChannels() + 1);
        sim.poke("ppmResultLanes", resultLanes);
        add[Counter.PPM_ELEMENTS.ordinal()] += flip(sim, r, "ppmResultRow") ? resultLanes : 0;
        add[Counter.PPM_CYCLES.ordinal()] += flip(sim, r, "ppmCycle") ? 1 : 0;
        sim.step();
        for (int k = 0; k < expected.length; k++) {
          expected[k] = clear ? 0 : (expected[k] + add[k]) & MASK;
        }
      }
    }
  }

  /** Pokes a random bit on {@code port} and returns it. */
  private static boolean flip(Simulator sim, Random r, String port) {
    boolean b = r.nextBoolean();
    sim.poke(port, b ? 1 : 0);
    return b;
  }

  /** A random amount of up to {@code bits} bits, often near the top so the counts wrap. */
  private static long amount(Random r, int bits) {
    long top = (1L << bits) - 1;
    return r.nextInt(4) == 0 ? top - r.nextInt(1000) : r.nextLong() & top;
  }
}
