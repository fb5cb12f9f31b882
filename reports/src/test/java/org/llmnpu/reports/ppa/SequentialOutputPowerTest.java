package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.reports.RequiredTools;
import org.llmnpu.reports.TestDesigns;
import org.llmnpu.reports.activity.SimulatedActivity;
import org.llmnpu.reports.activity.SimulatedActivity.BitStats;

/**
 * Sequential outputs in OpenSTA's power analysis of a simulated run: a flip-flop's Q and a clocked SRAM read port's
 * data. Debian's OpenSTA 2.0.17 does not carry activity across a clock-to-output arc, so before the power copies of
 * the flip-flops ({@link FlopPowerCells}) and the read ports' seed pin ({@link SramLiberty#powerLibrary}) the logic
 * behind them drew the same whatever the run measured on them. Here the inputs are still and only the sequential
 * outputs move: the logic behind them must draw more when they toggle.
 */
class SequentialOutputPowerTest {
  private static final int CYCLES = 200;

  /** A run in which the named bits toggle {@code toggles} times per cycle and every other dumped bit is still. */
  private static SimulatedActivity run(String top, Map<String, Integer> buses, double toggles, String... moving) {
    Map<String, BitStats> bits = new TreeMap<>();
    List<String> busy = List.of(moving);
    buses.forEach((bus, width) -> {
      for (int i = 0; i < width; i++) {
        long t = busy.contains(bus) ? Math.round(toggles * CYCLES) : 0;
        bits.put(width == 1 ? bus : bus + "[" + i + "]", new BitStats(t, CYCLES * 5L / 2));
      }
    });
    return new SimulatedActivity(top, CYCLES, CYCLES * 5L, bits);
  }

  private static PpaResult power(VerilogDesign d, SimulatedActivity run) {
    PpaResult r = PpaFlow.run(d, Map.of(), TestDesigns.options(), run);
    assertTrue(r.power().activityModel().startsWith("simulated"), r.power().activityModel());
    return r;
  }

  @Test
  void theLogicBehindFlipFlopsTakesTheirMeasuredActivity() {
    RequiredTools.require("yosys", "sta");
    VerilogDesign d = TestDesigns.mac8();
    Map<String, Integer> buses = Map.of("a", 8, "b", 8, "en", 1, "rst", 1, "a_q", 8, "b_q", 8, "en_q", 1, "acc", 32);
    PpaResult stillRun = power(d, run("mac8", buses, 0));
    double still = stillRun.power().totalMw();
    double busy = power(d, run("mac8", buses, 0.5, "a_q", "b_q")).power().totalMw();
    assertTrue(busy > still * 1.05, "a_q, b_q toggling 0.5/cycle: " + busy + " mW vs still " + still + " mW");
    assertTrue(stillRun.power().activityModel().contains("the other 0 flip-flops"),
        "every register of mac8 has its RTL name: " + stillRun.power().activityModel());
    System.out.printf("mac8: registers still %.4f mW, a_q/b_q toggling 0.5/cycle %.4f mW%n", still, busy);
  }

  @Test
  void theLogicBehindAClockedReadPortTakesItsDataActivity() {
    RequiredTools.require("yosys", "sta");
    VerilogDesign d = new VerilogDesign("sync_lut", Map.of("sync_lut.v", TestDesigns.text("sync_lut.v")),
        List.of(new VerilogDesign.MemoryInfo("sync_lut", "table_", 4, 16, 1, 1)));
    Map<String, Integer> buses = Map.of("we", 1, "waddr", 4, "wdata", 4, "raddr", 4, "rdata", 4, "out", 4);
    PpaResult stillRun = power(d, run("sync_lut", buses, 0));
    assertEquals(1, stillRun.synthesis().macros().size(), "the table is one macro");
    assertTrue(stillRun.synthesis().macros().get(0).readClocked(), "the read register merges into the port");
    double still = stillRun.power().totalMw();
    double busy = power(d, run("sync_lut", buses, 0.5, "rdata")).power().totalMw();
    assertTrue(busy > still * 1.02, "read data toggling 0.5/cycle: " + busy + " mW vs still " + still + " mW");
    System.out.printf("sync_lut (clocked read): read data still %.4f mW, toggling 0.5/cycle %.4f mW%n", still, busy);
  }
}
