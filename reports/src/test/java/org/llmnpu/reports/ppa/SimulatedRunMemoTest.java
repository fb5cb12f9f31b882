package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.examples.MacArrayExample;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.reports.RequiredTools;
import org.llmnpu.reports.TestDesigns;
import org.llmnpu.reports.activity.SimulatedActivity;
import org.llmnpu.verilator.SimModes;
import org.llmnpu.verilator.SimOptions;
import org.llmnpu.verilator.Simulators;

/**
 * A simulated run's OpenSTA result is made once per JVM ({@link SimulatedRunMemo}): asked again with the same inputs
 * — the same activity object, or the same run simulated again — the PPA flow hands back the first result, not a new
 * one; another activity is a run of its own.
 */
class SimulatedRunMemoTest {
  private static final VerilogDesign DESIGN = Verilog.emit(new MacArrayExample(new MacArrayExample.Config(2, 2)));

  /** Random weights, then {@code cycles} activations from {@code seed}. */
  private static SimulatedActivity run(long seed, int cycles) {
    SimOptions o = SimModes.local().withWaves(SimOptions.Waves.VCD);
    Random rnd = new Random(seed);
    Path vcd;
    try (Simulator s = Simulators.start(DESIGN, o)) {
      // two cycles loading the weights, then the activations, a random byte per lane and cycle
      for (int cycle = 0; cycle < 2 + cycles; cycle++) {
        boolean loading = cycle < 2;
        s.poke("load", loading ? 1 : 0);
        for (int lane = 0; lane < 2; lane++) {
          s.poke((loading ? "weights_" : "acts_") + lane, rnd.nextInt(256));
        }
        s.step();
      }
      vcd = s.waveFile();
    }
    return SimulatedActivity.read(vcd, "clk");
  }

  @Test
  void theSameRunAskedAgainIsTakenFromTheFirstNotRedone() {
    RequiredTools.require("yosys", "sta");
    PpaOptions o = TestDesigns.options();
    SimulatedActivity first = run(11, 120);
    PpaResult a = PpaFlow.run(DESIGN, Map.of(), o, first);
    PpaResult again = PpaFlow.run(DESIGN, Map.of(), o, first);
    assertSame(a.power(), again.power(), "the same activity: the first run's result");
    assertSame(a.timing(), again.timing());

    SimulatedActivity resimulated = run(11, 120);
    assertNotSame(first, resimulated);
    assertSame(a.power(), PpaFlow.run(DESIGN, Map.of(), o, resimulated).power(),
        "the same run simulated again (equal activity): the first run's result");

    PpaResult other = PpaFlow.run(DESIGN, Map.of(), o, run(12, 120));
    assertNotSame(a.power(), other.power(), "another activity is a run of its own");
    assertNotEquals(a.power().totalMw(), other.power().totalMw());

    PpaResult slower = PpaFlow.run(DESIGN, Map.of(), o.withClockNs(o.clockNs() * 2), first);
    assertNotSame(a.power(), slower.power(), "other options are a run of their own");
  }

  @Test
  void theKeyIsTheContentOfEveryInput() {
    SynthesisResult synth = new SynthesisResult(10, 1, new TreeMap<>(Map.of("DFFPOSX1", 1)), new TreeMap<>(),
        List.of(), List.of(), "module top(clk); input clk; endmodule\n", "");
    PpaOptions o = TestDesigns.options();
    SimulatedActivity act = activity(3);
    String key = SimulatedRunMemo.key("top", synth, o, act);
    assertEquals(key, SimulatedRunMemo.key("top", synth, o, activity(3)), "equal content, equal key");
    assertNotEquals(key, SimulatedRunMemo.key("top", synth, o, activity(4)), "one bit's toggles");
    assertNotEquals(key, SimulatedRunMemo.key("top", synth, o.withGateDuties(Map.of("g", 0.5)), act), "gate duties");
    assertNotEquals(key, SimulatedRunMemo.key("top", synth, o.withActivity(0.2, Map.of()), act), "stated activity");
    SynthesisResult other = new SynthesisResult(10, 1, synth.cellsByType(), synth.areaByTypeUm2(), List.of(),
        List.of(), synth.netlist().replace("clk", "ck"), "");
    assertNotEquals(key, SimulatedRunMemo.key("top", other, o, act), "the netlist");
  }

  private static SimulatedActivity activity(long toggles) {
    return new SimulatedActivity("top", 100, 1000, Map.of("a", new SimulatedActivity.BitStats(toggles, 500),
        "b", new SimulatedActivity.BitStats(7, 100)));
  }
}
