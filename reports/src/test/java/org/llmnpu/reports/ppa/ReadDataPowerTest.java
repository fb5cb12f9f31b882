package org.llmnpu.reports.ppa;

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
 * SRAM read data in OpenSTA's power analysis of a simulated run. A table with an asynchronous read port whose address
 * is as wide as its data crashed Debian's OpenSTA 2.0.17 (a segmentation fault in {@code report_power}, checked
 * 2026-12-05): its activity propagation followed the address-to-data arcs and evaluated the read data, a black-box
 * output without a function, through a null pointer. With the power library ({@link SramLiberty#powerLibrary}) the
 * first run finishes, and the read data's own activity reaches the logic it drives: the same run with the read data
 * busy draws more than with it still, everything else equal.
 */
class ReadDataPowerTest {
  private static final int CYCLES = 200;

  private static VerilogDesign lut() {
    return new VerilogDesign("lut", Map.of("lut.v", TestDesigns.text("lut.v")),
        List.of(new VerilogDesign.MemoryInfo("lut", "table_", 4, 16, 1, 1)));
  }

  /** A run of {@code top}: the {@code width}-bit inputs moving, the read data ({@code data}) toggling as given. */
  private static SimulatedActivity run(String top, int width, String data, double readToggles, String... inputs) {
    Map<String, BitStats> bits = new TreeMap<>();
    for (String in : inputs) {
      for (int i = 0; i < width; i++) {
        bits.put(in + "[" + i + "]", new BitStats(CYCLES / 4, CYCLES * 5L / 2));
      }
    }
    bits.put("we", new BitStats(CYCLES / 10, CYCLES * 5L / 2));
    for (int i = 0; i < width; i++) {
      bits.put(data + "[" + i + "]", new BitStats(Math.round(readToggles * CYCLES), CYCLES * 5L / 2));
    }
    return new SimulatedActivity(top, CYCLES, CYCLES * 5L, bits);
  }

  private static PpaResult power(VerilogDesign d, SimulatedActivity run) {
    PpaResult r = PpaFlow.run(d, Map.of(), TestDesigns.options(), run);
    String model = r.power().activityModel();
    // the first attempt: no fallback to one activity on every net
    assertTrue(model.startsWith("simulated"), model);
    assertTrue(model.contains("; SRAM read data: " + run.bits().keySet().stream().filter(b -> b.startsWith("rdata"))
        .count() + " bits from the run"), model);
    return r;
  }

  @Test
  void anAsynchronousReadPortNoLongerCrashesOpenStaAndItsDataDrivesTheLogicBehind() {
    RequiredTools.require("yosys", "sta");
    VerilogDesign d = lut();
    double still = power(d, run("lut", 4, "rdata", 0, "wdata", "waddr", "raddr")).power().totalMw();
    double busy = power(d, run("lut", 4, "rdata", 0.5, "wdata", "waddr", "raddr")).power().totalMw();
    assertTrue(busy > still * 1.02, "read data toggling 0.5/cycle " + busy + " mW vs still " + still + " mW");
    System.out.printf("lut (async read): read data still %.4f mW, toggling 0.5/cycle %.4f mW%n", still, busy);
  }
}
