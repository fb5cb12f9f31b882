package org.llmnpu.reports.html;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.llmnpu.reports.ppa.NodeFigures;
import org.llmnpu.reports.ppa.PpaResult;

/**
 * {@code ppa.csv}: one row per design point and process node (180 nm measured, 45 and 7 nm
 * scaled), parameters first, units in the column names. Power split and slack are measured
 * at 180 nm only and left empty on scaled rows.
 */
final class PpaCsv {
  private PpaCsv() {
  }

  static String render(PpaReport r) {
    Set<String> params = new LinkedHashSet<>();
    r.points().forEach(p -> params.addAll(p.params().keySet()));
    List<String> header = new ArrayList<>(List.of("block"));
    header.addAll(params);
    header.addAll(List.of("node_nm", "vdd_V", "measured", "logic_area_um2", "sram_area_um2", "total_area_um2",
        "std_cells", "flip_flops", "sram_bits", "critical_delay_ns", "fmax_MHz", "slack_ns", "logic_depth",
        "clock_ns", "activity", "activity_on", "internal_mW", "switching_mW", "leakage_mW", "total_power_mW",
        "energy_per_cycle_pJ", "power_at_fmax_mW"));
    StringBuilder s = new StringBuilder(String.join(",", header)).append('\n');
    for (PpaResult p : r.points()) {
      long bits = p.synthesis().macros().stream().mapToLong(m -> m.bits() * m.instances()).sum();
      for (NodeFigures n : p.nodes()) {
        List<String> row = new ArrayList<>(List.of(Fmt.csv(r.block())));
        params.forEach(k -> row.add(Fmt.csv(p.params().getOrDefault(k, ""))));
        row.addAll(List.of(Integer.toString(n.nm()), Fmt.fixed(n.vdd(), 2), Boolean.toString(n.measured()),
            Fmt.sig(n.logicAreaUm2()), Fmt.sig(n.sramAreaUm2()), Fmt.sig(n.totalAreaUm2()),
            Integer.toString(p.synthesis().cellCount()), Integer.toString(p.synthesis().flipFlops()),
            Long.toString(bits), Fmt.sig(n.criticalDelayNs()), Fmt.sig(n.fmaxMhz())));
        if (n.measured()) {
          row.addAll(List.of(Fmt.sig(p.timing().slackNs()), Integer.toString(p.timing().logicDepth()),
              Fmt.sig(p.timing().clockNs()), Fmt.sig(p.power().activity()),
              p.power().activityModel().equals(org.llmnpu.reports.ppa.PowerResult.INPUTS) ? "inputs" : "all nets",
              Fmt.sig(p.power().internalMw()),
              Fmt.sig(p.power().switchingMw()), Fmt.sig(p.power().leakageMw()), Fmt.sig(p.power().totalMw())));
        } else {
          row.addAll(List.of("", "", "", "", "", "", "", "", ""));
        }
        row.addAll(List.of(Fmt.sig(n.logicEnergyPerCyclePj()), Fmt.sig(n.logicPowerAtFmaxMw())));
        s.append(String.join(",", row)).append('\n');
      }
    }
    return s.toString();
  }
}
