package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.llmnpu.reports.RequiredTools;
import org.llmnpu.reports.TestDesigns;
import org.llmnpu.reports.activity.SimulatedActivity;
import org.llmnpu.reports.activity.SimulatedActivity.BitStats;

/**
 * OpenSTA's power of a simulated run on a netlist with an SRAM macro: a register file whose read data drives a chain
 * of gates into a flip-flop. While only its write data port toggles (address and write enable still), the logic
 * behind the read data must not switch: before {@link MacroReadActivity}, OpenSTA gave the read data its input
 * default (the run's mean input toggle rate) and charged that logic as if the macro were read every cycle.
 */
class MacroReadPowerTest {
  private static final String NETLIST = """
      module top(clk, a, b, q);
        input clk;
        input [1:0] a;
        input b;
        output q;
        wire [1:0] \\u.rd ;
        wire _1_;
        wire _2_;
        wire _3_;
        wire _4_;
        wire _5_;
        LLMNPU_SRAM_Lane_registers \\u.registers  (
          .RD_ADDR(b),
          .RD_CLK(1'h0),
          .RD_DATA(\\u.rd ),
          .WR_ADDR(b),
          .WR_CLK(clk),
          .WR_DATA(a),
          .WR_EN({ b, b })
        );
        XOR2X1 _6_ (.A(\\u.rd [0]), .B(\\u.rd [1]), .Y(_1_));
        INVX1 _7_ (.A(_1_), .Y(_2_));
        INVX1 _8_ (.A(_2_), .Y(_3_));
        INVX1 _9_ (.A(_3_), .Y(_4_));
        INVX1 _10_ (.A(_4_), .Y(_5_));
        DFFPOSX1 _11_ (.CLK(clk), .D(_5_), .Q(q));
      endmodule
      """;

  private static final SramMacro REGISTERS =
      new SramMacro("LLMNPU_SRAM_Lane_registers", "Lane", "registers", 2, 2, 1, 1, 1, false, 1);

  private static double powerMw(Map<String, long[]> dumped) {
    Map<String, BitStats> stats = new TreeMap<>();
    dumped.forEach((k, v) -> stats.put(k, new BitStats(v[0], v[1])));
    SimulatedActivity run = new SimulatedActivity("top", 100, 1000, stats);
    SynthesisResult synth = new SynthesisResult(0, 6, new TreeMap<>(Map.of("DFFPOSX1", 1, "INVX1", 4, "XOR2X1", 1)),
        new TreeMap<>(), List.of(REGISTERS), List.of(), NETLIST, "");
    PpaOptions o = TestDesigns.options();
    return new OpenSta(o.liberty(), o.cache()).run("top", synth, o, run).power().totalMw();
  }

  @Test
  void anIdleRegisterFilesReadDataHoldsStillWhileItsWriteDataToggles() {
    RequiredTools.require("sta");
    long[] still = {0, 0};
    long[] busy = {50, 500};
    double idle = powerMw(Map.of("a[0]", still, "a[1]", still, "b", still, "q", still));
    double writeDataOnly = powerMw(Map.of("a[0]", busy, "a[1]", busy, "b", still, "q", still));
    double readsToggling = powerMw(Map.of("a[0]", busy, "a[1]", busy, "b", still, "q", still, "u.rd[0]", busy,
        "u.rd[1]", busy));
    // the read data's own toggles in the run reach the logic behind it ...
    assertTrue(readsToggling > writeDataOnly * 1.5, readsToggling + " vs " + writeDataOnly + " mW");
    // ... and toggles on the write data alone charge only the write-data pins, not that logic
    assertTrue(writeDataOnly - idle < 0.1 * (readsToggling - idle),
        "idle " + idle + ", write data only " + writeDataOnly + ", reads toggling " + readsToggling + " mW");
  }
}
