package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.llmnpu.reports.activity.SimulatedActivity;
import org.llmnpu.reports.activity.SimulatedActivity.BitStats;

/**
 * The SRAM macros' read data in a simulated run: a bit the run dumped keeps its own toggles; an anonymous bit is
 * estimated from its own read port's address toggles and the array's writes (so an idle register file's outputs
 * stay still however busy the rest of the design is); constants in the address are skipped; the ports of a
 * two-port macro are sliced as Yosys concatenates them (port 0 least significant); each bit's activity goes on its
 * macro pin.
 */
class MacroReadActivityTest {
  private static final String NETLIST = """
      module top(clk, a, q);
        input clk;
        input [1:0] a;
        output [3:0] q;
        wire [1:0] \\u.named ;
        wire [1:0] _07_;
        wire _09_;
        wire [1:0] \\u.ra ;
        wire \\u.rb ;
        wire \\u.we ;
        LLMNPU_SRAM_Lane_registers \\u.registers  (
          .RD_ADDR({ 1'h0, \\u.rb , \\u.ra  }),
          .RD_CLK(2'h0),
          .RD_DATA({ _07_, \\u.named  }),
          .WR_ADDR(\\u.ra ),
          .WR_CLK(clk),
          .WR_DATA(a),
          .WR_EN({ \\u.we , \\u.we  })
        );
        LLMNPU_SRAM_Lane_buffer \\u.buffer  (
          .RD_ADDR(\\u.ra ),
          .RD_CLK(1'h0),
          .RD_DATA({ _09_, q[3] }),
          .WR_ADDR(\\u.ra ),
          .WR_CLK(clk),
          .WR_DATA(a),
          .WR_EN({ _0100_, _0100_ })
        );
      endmodule
      """;

  private static final List<SramMacro> MACROS = List.of(
      new SramMacro("LLMNPU_SRAM_Lane_registers", "Lane", "registers", 2, 4, 2, 2, 1, false, 1),
      new SramMacro("LLMNPU_SRAM_Lane_buffer", "Lane", "buffer", 2, 4, 2, 1, 1, false, 1));

  private static Map<String, MacroReadActivity.Bit> bits(Map<String, long[]> dumped, double unknown) {
    Map<String, BitStats> stats = new TreeMap<>();
    dumped.forEach((k, v) -> stats.put(k, new BitStats(v[0], v[1])));
    SimulatedActivity run = new SimulatedActivity("top", 100, 1000, stats);
    return MacroReadActivity.bits(NETLIST, new GateNetlist("top", NETLIST), MACROS, run, unknown).stream()
        .collect(Collectors.toMap(MacroReadActivity.Bit::net, b -> b));
  }

  @Test
  void anIdleMacroReadsStillWhateverTheRestOfTheRunDoes() {
    // addresses and write enable dumped and still; the busy input port does not reach the read data
    Map<String, MacroReadActivity.Bit> b = bits(Map.of("a[0]", new long[] {50, 500}, "u.ra[0]", new long[] {0, 0},
        "u.ra[1]", new long[] {0, 0}, "u.rb", new long[] {0, 0}, "u.we", new long[] {0, 0}), 0.3);
    assertEquals(0, b.get("_07_[0]").activity(), 1e-12);
    assertEquals(0, b.get("_07_[1]").activity(), 1e-12);
    assertFalse(b.get("_07_[0]").simulated());
    // the named port-0 bits were not dumped either: estimated the same way
    assertEquals(0, b.get("u.named[0]").activity(), 1e-12);
    // the buffer's write enable is anonymous: its writes count the unknown rate (0.3 per cycle)
    assertEquals(0.5 * 0.3, b.get("_09_").activity(), 1e-12);
    assertEquals(0.5 * 0.3, b.get("q[3]").activity(), 1e-12);
    assertEquals(6, b.size());
  }

  @Test
  void dumpedBitsKeepTheirTogglesAndPortsAreSlicedByAddress() {
    Map<String, MacroReadActivity.Bit> b = bits(Map.of("u.named[1]", new long[] {40, 250}, "u.ra[0]",
        new long[] {20, 500}, "u.ra[1]", new long[] {10, 500}, "u.rb", new long[] {90, 500}, "u.we",
        new long[] {0, 100}), 0.3);
    MacroReadActivity.Bit named = b.get("u.named[1]");
    assertTrue(named.simulated());
    assertEquals(0.4, named.activity(), 1e-12);
    assertEquals(0.25, named.duty(), 1e-12);
    // port 0 (u.named[0], not dumped): address u.ra toggles 0.2 + 0.1 a cycle, writes 0.1 a cycle (we high 10 %)
    assertEquals(0.5 * (0.3 + 0.1), b.get("u.named[0]").activity(), 1e-12);
    assertEquals(0.5, b.get("u.named[0]").duty(), 1e-12);
    // port 1 (_07_): address u.rb toggles 0.9 a cycle (the constant bit skipped) + writes 0.1: capped at 1
    assertEquals(0.5, b.get("_07_[1]").activity(), 1e-12);
  }

  @Test
  void eachReadBitIsNamedByItsMacroPinAndGetsItsActivityThere() {
    Map<String, MacroReadActivity.Bit> b = bits(Map.of("u.named[1]", new long[] {25, 500}), 0.3);
    // RD_DATA({ _07_, \\u.named  }) of the two-port registers: _07_ is RD_DATA[3:2], u.named RD_DATA[1:0]
    assertEquals("u.registers/RD_DATA[3]", b.get("_07_[1]").pin());
    assertEquals("u.registers/RD_DATA[2]", b.get("_07_[0]").pin());
    assertEquals("u.registers/RD_DATA[0]", b.get("u.named[0]").pin());
    assertEquals("u.buffer/RD_DATA[1]", b.get("_09_").pin());
    assertEquals("u.buffer/RD_DATA[0]", b.get("q[3]").pin());
    String tcl = MacroReadActivity.tcl(List.of(b.get("u.named[1]"), b.get("_09_")));
    assertEquals("sta::set_power_pin_activity [get_pins {u.registers/RD_DATA[1]}] 0.2500 0.5000\n"
        + "sta::set_power_pin_activity [get_pins {u.buffer/RD_DATA[1]}] 0.4500 0.5000\n", tcl);
  }
}
