package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.uint;

import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.ClockGating;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.reports.RequiredTools;
import org.llmnpu.reports.TestDesigns;
import org.llmnpu.reports.activity.SimulatedActivity;
import org.llmnpu.verilator.SimModes;
import org.llmnpu.verilator.SimOptions;
import org.llmnpu.verilator.Simulators;

/**
 * Power of a clock-gated register bank with its gated clock made ideal ({@link GatedClocks}): a gate open every cycle
 * costs what the ungated design costs, the bank's clock power scales with the fraction of cycles its gate is open
 * (stated, or from a simulated run of the enable), and the timing report is the netlist's as synthesized.
 */
class GatedClockPowerTest {
  /** Eight 32-bit registers loaded from {@code value} while {@code load}, on a clock gated by {@code load}. */
  static final class GatedRegisters extends HwModule {
    final Bool load = in(bool());
    final UInt value = in(uint(32));
    final UInt sum = out(uint(32));

    GatedRegisters(ClockGating gating) {
      clockGated("bank", load, gating, () -> {
        UInt prev = value;
        UInt acc = null;
        for (int i = 0; i < 8; i++) {
          UInt r = regInit("r" + i, uint(32), 0);
          UInt from = prev;
          when(load, () -> r.set(from));
          prev = r;
          acc = acc == null ? r : acc.xor(r);
        }
        sum.set(acc);
      });
    }
  }

  private static final VerilogDesign GATED = Verilog.emit(new GatedRegisters(ClockGating.ON));
  private static final VerilogDesign PLAIN = Verilog.emit(new GatedRegisters(ClockGating.OFF));

  @BeforeEach
  void tools() {
    RequiredTools.require("yosys", "sta");
  }

  private static PpaResult gated(double duty) {
    return PpaFlow.run(GATED, TestDesigns.options().withGateDuties(Map.of("bank", duty)));
  }

  @Test
  void aGateOpenEveryCycleCostsTheUngatedPowerAndTheClockPowerScalesWithItsDuty() {
    PpaResult plain = PpaFlow.run(PLAIN, TestDesigns.options());
    PpaResult open = gated(1);
    PpaResult half = gated(0.5);
    PpaResult quarter = gated(0.25);
    PpaResult shut = gated(0);
    String model = open.power().activityModel();
    assertTrue(model.contains("gated clocks ideal") && model.contains("bank 1.0000 (256 pins)"), model);
    assertEquals(plain.synthesis().flipFlops(), open.synthesis().flipFlops());
    double p = plain.power().totalMw();
    assertTrue(Math.abs(open.power().totalMw() - p) < 0.1 * p, "open gate " + open.power() + " vs ungated " + p);
    assertTrue(p > 1, "a 256-flip-flop bank at 5 ns draws milliwatts: " + p);
    double clock = open.power().internalMw() - shut.power().internalMw();
    assertTrue(clock > 0.5 * open.power().internalMw(), "the bank's clock pins dominate its idle: " + clock);
    double h = (half.power().internalMw() - shut.power().internalMw()) / clock;
    double q = (quarter.power().internalMw() - shut.power().internalMw()) / clock;
    assertTrue(Math.abs(h - 0.5) < 0.08, "duty 0.5 gives " + h + " of the clock power");
    assertTrue(Math.abs(q - 0.25) < 0.08, "duty 0.25 gives " + q + " of the clock power");
    assertTrue(shut.power().totalMw() < half.power().totalMw() && half.power().totalMw() < open.power().totalMw());
    // the gated net is no longer a 256-pin load on one AND cell: no extrapolated slew, no watts
    assertTrue(open.power().totalMw() < 2 * p, open.power().toString());
    System.out.printf("gated bank of 256 flip-flops at 5 ns: ungated %.3f mW; gate open 1 / 0.5 / 0.25 / 0: "
        + "%.3f / %.3f / %.3f / %.3f mW%n", p, open.power().totalMw(), half.power().totalMw(),
        quarter.power().totalMw(), shut.power().totalMw());
  }

  @Test
  void timingIsTheSynthesizedNetlistsWhateverTheDuty() {
    assertEquals(gated(1).timing(), gated(0.25).timing());
  }

  @Test
  void aSimulatedRunGivesTheGatesDutyFromItsLatchedEnable() {
    Random rnd = new Random(3);
    Path vcd;
    int loads = 0;
    int cycles = 400;
    try (Simulator s = Simulators.start(GATED, SimModes.local().withWaves(SimOptions.Waves.VCD))) {
      for (int i = 0; i < cycles; i++) {
        boolean on = rnd.nextInt(10) < 3;
        loads += on ? 1 : 0;
        s.poke("load", on ? 1 : 0);
        s.poke("value", rnd.nextInt());
        s.step();
      }
      vcd = s.waveFile();
    }
    SimulatedActivity run = SimulatedActivity.read(vcd, "clk");
    double duty = run.duty("bank_clockGate.enable_latched");
    assertTrue(Math.abs(duty - (double) loads / cycles) < 0.03, "latched enable duty " + duty + " vs "
        + loads + " loads in " + cycles + " cycles");
    PpaResult simulated = PpaFlow.run(GATED, Map.of(), TestDesigns.options(), run);
    String model = simulated.power().activityModel();
    assertTrue(model.contains(String.format(java.util.Locale.ROOT, "bank %.4f", duty)), model);
    // the same run's data activity with the gate stated open every cycle, and never
    PpaResult open = PpaFlow.run(GATED, Map.of(), TestDesigns.options().withGateDuties(Map.of("bank", 1.0)), run);
    PpaResult shut = PpaFlow.run(GATED, Map.of(), TestDesigns.options().withGateDuties(Map.of("bank", 0.0)), run);
    double share = (simulated.power().internalMw() - shut.power().internalMw())
        / (open.power().internalMw() - shut.power().internalMw());
    assertTrue(Math.abs(share - duty) < 0.08, "clock power share " + share + " at duty " + duty);
  }
}
