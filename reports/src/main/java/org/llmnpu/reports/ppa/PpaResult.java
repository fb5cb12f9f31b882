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
 */
public record PpaResult(String design, Map<String, String> params, SynthesisResult synthesis,
                        TimingResult timing, PowerResult power) {
  public PpaResult {
    params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
  }

  /** SRAM macro area of all copies at a node, µm². */
  public double sramAreaUm2(NodeScaling.Node node) {
    return synthesis.macros().stream().mapToDouble(m -> SramModel.areaUm2(m, node) * m.instances()).sum();
  }

  /** The figures at 180 nm (measured) followed by 45 nm and 7 nm (scaled). */
  public List<NodeFigures> nodes() {
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
