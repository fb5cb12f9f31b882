package org.llmnpu.reports.activity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.examples.MacArrayExample;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.reports.RequiredTools;
import org.llmnpu.reports.TestDesigns;
import org.llmnpu.reports.ppa.PpaFlow;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.verilator.SimModes;
import org.llmnpu.verilator.SimOptions;
import org.llmnpu.verilator.Simulators;

/**
 * Power from the activity of a simulated run: the same 2×2 MAC array costs more when it
 * multiplies random data than when its activations are zero, every flip-flop is annotated
 * from the VCD, and the default stated activity gives yet another figure.
 */
class ActivityPowerTest {
  private static final VerilogDesign DESIGN = Verilog.emit(new MacArrayExample(new MacArrayExample.Config(2, 2)));

  /** Loads random weights, then streams {@code cycles} activations (random, or zero). */
  private static Path run(boolean randomActs, int cycles) {
    SimOptions o = SimModes.local().withWaves(SimOptions.Waves.VCD);
    Random rnd = new Random(7);
    try (Simulator s = Simulators.start(DESIGN, o)) {
      s.poke("load", 1);
      for (int i = 0; i < 2; i++) {
        s.poke("weights_0", rnd.nextInt(256));
        s.poke("weights_1", rnd.nextInt(256));
        s.step();
      }
      s.poke("load", 0);
      for (int i = 0; i < cycles; i++) {
        s.poke("acts_0", randomActs ? rnd.nextInt(256) : 0);
        s.poke("acts_1", randomActs ? rnd.nextInt(256) : 0);
        s.step();
      }
      return s.waveFile();
    }
  }

  @Test
  void powerFollowsTheWorkloadThatRan() {
    RequiredTools.require("yosys", "sta");
    SimulatedActivity busy = SimulatedActivity.read(run(true, 300), "clk");
    SimulatedActivity idle = SimulatedActivity.read(run(false, 300), "clk");
    assertEquals(DESIGN.top(), busy.top());
    var o = TestDesigns.options();
    PpaResult stated = PpaFlow.run(DESIGN, Map.of(), o);
    PpaResult b = PpaFlow.run(DESIGN, Map.of(), o, busy);
    PpaResult i = PpaFlow.run(DESIGN, Map.of(), o, idle);
    String model = b.power().activityModel();
    int ffs = b.synthesis().flipFlops();
    assertTrue(model.contains(ffs + " of " + ffs + " flip-flops"), "every register annotated: " + model);
    assertTrue(b.power().totalMw() > 1.5 * i.power().totalMw(),
        "random data " + b.power().totalMw() + " mW vs zero activations " + i.power().totalMw() + " mW");
    System.out.printf("2x2 MAC array: stated activity %.2f: %.4f mW; simulated random: %.4f mW; zero acts: %.4f mW%n",
        o.activity(), stated.power().totalMw(), b.power().totalMw(), i.power().totalMw());
  }
}
