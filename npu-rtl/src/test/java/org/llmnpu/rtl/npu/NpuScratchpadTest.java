package org.llmnpu.rtl.npu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigInteger;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.llmnpu.hdl.ToolsForTests;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.verilator.SimModes;

/**
 * The {@link NpuScratchpad} unit alone in Verilator against a byte-array model of its specification: under random
 * requests of all six writers at once (never the PPM with load4's first line or dspout, as in the NPU), the first valid one in priority order (drain, load4's second line, load4's
 * first line, dspout, PPM, load) writes its masked bytes to its line (the walk's for load4's first line, dspout and
 * load), visible from the next cycle; {@code readData} is line {@code walkLine} (the drain's line while
 * {@code drainReads}), {@code drainOldLine} the drain's line while {@code drainReads} (it selects the bank of the
 * port's read by the drain's line), and every extra read port its own line.
 */
class NpuScratchpadTest {
  private static final List<String> PRIORITY = List.of("drain", "load4Second", "load4First", "dspOut", "ppm", "load");
  /** Lines the test writes and reads (few, so reads often meet earlier writes). */
  private static final int USED_LINES = 16;
  private static final List<String> WALK_WRITERS = List.of("load4First", "dspOut", "load");

  @ParameterizedTest(name = "weightRowsPerCycle {0}")
  @ValueSource(ints = {1, 4})
  void theFirstValidWriterWritesAndEveryPortReadsItsLine(int weightRowsPerCycle) {
    ToolsForTests.require("verilator");
    NpuConfig c = NpuConfig.small().withWeightRowsPerCycle(weightRowsPerCycle);
    int line = c.machine().lineBytes();
    byte[] model = new byte[c.machine().spadBytes()];
    Random r = new Random(17 + weightRowsPerCycle);
    try (Simulator sim = SimModes.startLocal(new NpuScratchpad(c))) {
      // (no reset port: the scratchpad has no register)
      // the lines the test uses start as zeros (in the model too): written through the load request
      for (String w : PRIORITY) {
        sim.poke(w + "_valid", 0);
      }
      for (int l = 0; l < USED_LINES; l++) {
        sim.poke("walkLine", l);
        sim.poke("load_valid", 1);
        sim.poke("load_data", 0);
        sim.poke("load_mask", (1 << line) - 1);
        sim.step();
      }
      for (int cycle = 0; cycle < 4000; cycle++) {
        int walk = r.nextInt(USED_LINES);
        sim.poke("walkLine", walk);
        boolean drainReads = r.nextInt(4) == 0;
        sim.poke("drainReads", drainReads ? 1 : 0);
        int drainLine = r.nextInt(USED_LINES);
        String writer = null;
        int target = -1;
        BigInteger data = null;
        int mask = 0;
        boolean walkWriter = false;
        for (String w : PRIORITY) {
          // the PPM never writes in the same cycle as load4's first line or dspout (the controller's states)
          boolean valid = r.nextInt(PRIORITY.size() + 2) == 0 && !(w.equals("ppm") && walkWriter);
          walkWriter |= valid && (w.equals("load4First") || w.equals("dspOut"));
          BigInteger d = new BigInteger(8 * line, r);
          int m = r.nextInt(1 << line);
          int l = WALK_WRITERS.contains(w) ? walk : w.equals("drain") ? drainLine : r.nextInt(USED_LINES);
          sim.poke(w + "_valid", valid ? 1 : 0);
          sim.poke(w + "_data", d);
          sim.poke(w + "_mask", m);
          if (!WALK_WRITERS.contains(w)) {
            sim.poke(w + "_line", l);
          }
          if (valid && writer == null) {
            writer = w;
            target = l;
            data = d;
            mask = m;
          }
        }
        int[] extra = new int[weightRowsPerCycle - 1];
        for (int i = 0; i < extra.length; i++) {
          extra[i] = r.nextInt(USED_LINES);
          sim.poke("readLine" + (i + 1), extra[i]);
        }
        String at = "cycle " + cycle;
        assertEquals(writer != null ? 1 : 0, sim.peekLong("write"), at);
        assertEquals(lineOf(model, drainReads ? drainLine : walk, line), sim.peek("readData"), at + ": readData");
        if (drainReads) {
          assertEquals(lineOf(model, drainLine, line), sim.peek("drainOldLine"), at + ": drainOldLine");
        }
        for (int i = 0; i < extra.length; i++) {
          assertEquals(lineOf(model, extra[i], line), sim.peek("readData" + (i + 1)), at + ": readData" + (i + 1));
        }
        sim.step();
        for (int b = 0; writer != null && b < line; b++) {
          if ((mask >> b & 1) != 0) {
            model[target * line + b] = data.shiftRight(8 * b).byteValue();
          }
        }
      }
    }
  }

  private static BigInteger lineOf(byte[] model, int index, int line) {
    byte[] big = new byte[line + 1];
    for (int i = 0; i < line; i++) {
      big[line - i] = model[index * line + i];
    }
    return new BigInteger(big);
  }
}
