package org.llmnpu.reports.energy;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.reports.activity.SimulatedActivity;
import org.llmnpu.reports.ppa.PpaFlow;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.verilator.SimOptions;
import org.llmnpu.verilator.Simulators;

/**
 * The measurement behind every calibration: a workload runs in Verilator with waves, its switching
 * activity goes onto the synthesized netlist ({@link SimulatedActivity}, OpenSTA), and the run's
 * power, cycles and flip-flops come back as a {@link Measured}. Keeps the power of every run and
 * the idle runs (energy per cycle and flip-flops) for {@link EnergyAction#IDLE_FLIP_FLOP}.
 */
final class CalibrationRuns {
  /** Cycles of the idle runs. */
  static final int IDLE_CYCLES = 200;

  /** One run's power (mW) over its dumped cycles at the clock; {@code simulated} false if OpenSTA crashed. */
  record Measured(String name, double mw, long cycles, double clockNs, boolean simulated, int flipFlops) {
    double energyPerCyclePj() {
      return mw * clockNs;
    }

    double energyPj() {
      return mw * clockNs * cycles;
    }
  }

  final PpaOptions ppa;
  final SimOptions sim;
  final Consumer<String> log;
  final Map<String, Double> powers;
  /** The idle runs by design: energy per cycle (pJ) and flip-flops. */
  final Map<String, double[]> idleRuns;

  CalibrationRuns(PpaOptions ppa, SimOptions sim, Consumer<String> log) {
    this(ppa, sim, log, new LinkedHashMap<>(), new LinkedHashMap<>());
  }

  private CalibrationRuns(PpaOptions ppa, SimOptions sim, Consumer<String> log, Map<String, Double> powers,
                          Map<String, double[]> idleRuns) {
    this.ppa = ppa;
    this.sim = sim.withWaves(SimOptions.Waves.VCD);
    this.log = log;
    this.powers = powers;
    this.idleRuns = idleRuns;
  }

  /**
   * The same runs (recording into the same maps) with every clock gate of {@code design} stated open every cycle
   * for power ({@code PpaOptions.gateDuties}), whatever the runs' enables did: the gated flip-flops' clock power is
   * then in every run alike, so differences between runs are the data paths', as on an ungated design.
   */
  CalibrationRuns withGatesOpen(org.llmnpu.hdl.emit.VerilogDesign design) {
    Map<String, Double> open = new LinkedHashMap<>();
    design.gatedBanks().forEach(b -> open.put(b.path(), 1.0));
    return new CalibrationRuns(ppa.withGateDuties(open), sim, log, powers, idleRuns);
  }

  static void requireSimulated(Measured... runs) {
    for (Measured r : runs) {
      if (!r.simulated()) {
        throw new IllegalStateException("OpenSTA crashed propagating the activity of '" + r.name() + "', so its power "
            + "is not from the run; the energy table cannot be calibrated on this design (try another size)");
      }
    }
  }

  /** Energy (pJ) of {@code run} above {@code idle}'s power over the same cycles. */
  static double aboveIdle(Measured run, Measured idle) {
    return run.energyPj() - idle.energyPerCyclePj() * run.cycles;
  }

  String basis(Measured busy, Measured idle, double actions, String what, String top) {
    return String.format(Locale.ROOT, "OpenSTA with the activity of %s: %.3f mW over %d compute cycles, idle "
        + "%.3f mW, %.0f %s, at %.3g ns", top, busy.mw, busy.cycles, idle.mw, actions, what, ppa.clockNs());
  }

  /** {@code d} clocked {@value #IDLE_CYCLES} cycles with nothing to do; pooled for the idle per flip-flop. */
  Measured idle(VerilogDesign d, String name) {
    Measured m = idleUnpooled(d, name);
    if (m.simulated() && m.flipFlops() > 0) {
      idleRuns.put(d.top(), new double[] {m.energyPerCyclePj(), m.flipFlops()});
    }
    return m;
  }

  /** The same idle run, not pooled into the idle per flip-flop. */
  Measured idleUnpooled(VerilogDesign d, String name) {
    Path vcd;
    try (Simulator s = Simulators.start(d, sim)) {
      s.reset(2);
      s.waves(true);
      s.step(IDLE_CYCLES);
      s.waves(false);
      vcd = s.waveFile();
    }
    return power(d, name, vcd);
  }

  /**
   * A run whose waves cover only {@code work}: {@code setup} (loading registers or tables) runs
   * first with the dump off.
   */
  Measured window(VerilogDesign d, String name, Consumer<Simulator> setup, Consumer<Simulator> work) {
    Path vcd;
    try (Simulator s = Simulators.start(d, sim)) {
      s.reset(2);
      s.waves(false);
      setup.accept(s);
      s.waves(true);
      work.accept(s);
      s.waves(false);
      vcd = s.waveFile();
    }
    return power(d, name, vcd);
  }

  /** A run whose waves cover the compute of a start/done block ({@link ComputeWindow}). */
  Measured measure(VerilogDesign d, String name, Consumer<Simulator> work) {
    Path vcd;
    try (Simulator s = Simulators.start(d, sim)) {
      s.reset(2);
      work.accept(new ComputeWindow(s));
      vcd = s.waveFile();
    }
    return power(d, name, vcd);
  }

  /** A run whose waves {@code work} turns on and off itself (the dump starts off). */
  Measured custom(VerilogDesign d, String name, Consumer<Simulator> work) {
    return power(d, name, simulate(d, work));
  }

  /**
   * The simulation half of {@link #custom}: {@code work}'s activity (the dump starts off), with no power run, so that
   * the power runs ({@link #power(VerilogDesign, String, SimulatedActivity)}) can be made later or elsewhere.
   */
  SimulatedActivity simulate(VerilogDesign d, Consumer<Simulator> work) {
    Path vcd;
    try (Simulator s = Simulators.start(d, sim)) {
      s.waves(false);
      work.accept(s);
      s.waves(false);
      vcd = s.waveFile();
    }
    return SimulatedActivity.read(vcd, ppa.clockPort());
  }

  Measured power(VerilogDesign d, String name, Path vcd) {
    return power(d, name, SimulatedActivity.read(vcd, ppa.clockPort()));
  }

  /**
   * {@code act} on {@code d}'s synthesized netlist: OpenSTA's power through the PPA flow, whose content-addressed
   * cache keys the run by the netlist's inputs and the activity, so the same run made earlier (another job) is read
   * back, not repeated.
   */
  Measured power(VerilogDesign d, String name, SimulatedActivity act) {
    PpaResult r = PpaFlow.run(d, Map.of(), ppa, act);
    powers.put(name, r.power().totalMw());
    log.accept(String.format(Locale.ROOT, "  run %-28s %8.3f mW over %d cycles (%s)", name, r.power().totalMw(),
        act.cycles(), d.top()));
    int read = r.power().activityModel().indexOf("; SRAM read data");
    if (read >= 0) {
      log.accept("    " + r.power().activityModel().substring(read + 2).split(";")[0]);
    }
    boolean simulated = r.power().activityModel().startsWith("simulated");
    if (!simulated) {
      log.accept("  (OpenSTA crashed propagating this run's activity on " + d.top() + "; not usable)");
    }
    return new Measured(name, r.power().totalMw(), act.cycles(), ppa.clockNs(), simulated, r.synthesis().flipFlops());
  }
}
