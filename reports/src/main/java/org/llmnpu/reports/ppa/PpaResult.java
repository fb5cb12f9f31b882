package org.llmnpu.reports.ppa;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The PPA of one design point: synthesis, timing and power at 180 nm, SRAM macros, and the
 * figures scaled to 45 nm and 7 nm.
 *
 * @param design the top module's name
 * @param params the generator parameters of this point (empty for hand-written Verilog)
 * @param timing OpenSTA's timing, or null for a module's share of a larger design's synthesis ({@link #share})
 * @param power  OpenSTA's power, null exactly when {@code timing} is
 */
public record PpaResult(String design, Map<String, String> params, SynthesisResult synthesis,
                        TimingResult timing, PowerResult power) {
  public PpaResult {
    params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
    if ((timing == null) != (power == null)) {
      throw new IllegalArgumentException("a PPA result has timing and power, or neither (a module's share)");
    }
  }

  /**
   * A module's share of a larger design's hierarchical synthesis ({@link ModuleAreas}): area, cells and SRAM macros,
   * no timing or power of its own (it was not synthesized or timed alone).
   */
  public static PpaResult share(String module, SynthesisResult synthesis) {
    return new PpaResult(module, Map.of(), synthesis, null, null);
  }

  /** Whether this result has its own timing and power (false for a {@link #share}). */
  public boolean timed() {
    return timing != null;
  }

  /** SRAM macro area of all copies at a node, µm². */
  public double sramAreaUm2(NodeScaling.Node node) {
    return synthesis.macros().stream().mapToDouble(m -> SramModel.areaUm2(m, node) * m.instances()).sum();
  }

  /** The figures at 180 nm (measured) followed by 45 nm and 7 nm (scaled). */
  public List<NodeFigures> nodes() {
    if (!timed()) {
      throw new IllegalStateException(design + " is a share of a larger synthesis: it has no timing of its own");
    }
    List<NodeFigures> out = new ArrayList<>();
    double energy180 = power.energyPerCyclePj(timing.clockNs());
    out.add(new NodeFigures(180, NodeScaling.Node.N180.vdd, synthesis.chipAreaUm2(),
        sramAreaUm2(NodeScaling.Node.N180), timing.criticalDelayNs(), timing.fmaxMhz(), energy180,
        energy180 * timing.fmaxMhz() * 1e-3, true));
    for (NodeScaling.Node n : NodeScaling.TARGETS) {
      double delay = timing.criticalDelayNs() * NodeScaling.delay(n);
      double energy = energy180 * NodeScaling.energy(NodeScaling.Node.N180, NodeScaling.Node.N180.vdd, n);
      double fmax = 1000.0 / delay;
      out.add(new NodeFigures(n.nm, n.vdd, synthesis.chipAreaUm2() * NodeScaling.area(n), sramAreaUm2(n), delay,
          fmax, energy, energy * fmax * 1e-3, false));
    }
    return out;
  }
}
