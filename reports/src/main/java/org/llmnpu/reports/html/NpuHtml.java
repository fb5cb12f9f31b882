package org.llmnpu.reports.html;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.llmnpu.reports.energy.EnergyEstimate;
import org.llmnpu.reports.energy.EnergyTable;
import org.llmnpu.reports.npu.NpuReport;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.reports.ppa.PpaResult;

/**
 * {@code index.html} of {@code npu report npu}: one self-contained page (inline CSS and SVG, no
 * scripts, nothing fetched) with the configuration, PPA per unit (area pie, Fmax bars, critical
 * paths), the cycle-model validation scatter, energy per token with its breakdown, the roofline
 * the seed-trends table and, when gathered, the SoC section ({@link SocSectionHtml}).
 */
final class NpuHtml {
  private static final String CSS = "body{font-family:sans-serif;margin:24px;color:#222;max-width:1240px}"
      + "table{border-collapse:collapse;margin:8px 0 16px}th,td{border:1px solid #bbb;padding:3px 8px;"
      + "text-align:right;vertical-align:top}th{background:#eef}td.l,th.l{text-align:left}"
      + "h2{border-bottom:2px solid #88a;margin-top:28px}.note{color:#833}.plots svg{margin:4px 12px 12px 0;"
      + "border:1px solid #ddd}.agrees{background:#e6f4e6}.disagrees{background:#fbe3e3}.partly{background:#fff4d6}"
      + ".notmeasured{background:#eee}small{color:#555}.proxy{background:#fff4d6;padding:6px 10px;"
      + "border-left:4px solid #e0a800}";

  private NpuHtml() {
  }

  static String render(NpuReport r) {
    StringBuilder s = new StringBuilder();
    s.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>")
        .append(Fmt.esc(r.title())).append("</title>\n<style>").append(CSS).append("</style>\n</head>\n<body>\n");
    s.append("<h1>").append(Fmt.esc(r.title())).append("</h1>\n");
    headline(s, r);
    config(s, r);
    ppa(s, r);
    cycles(s, r);
    energy(s, r);
    roofline(s, r);
    trends(s, r);
    SocSectionHtml.html(s, r.soc());
    if (!r.notes().isEmpty()) {
      s.append("<h2>Notes</h2>\n<ul>\n");
      r.notes().forEach(n -> s.append("<li>").append(Fmt.esc(n)).append("</li>\n"));
      s.append("</ul>\n");
    }
    s.append("<p><small>Scaling to 45 and 7 nm: ").append(Fmt.esc(NodeScaling.CITATION))
        .append(". PPA: Yosys + OpenSTA on OSU 0.18 &micro;m; memories as SRAM macros (SRAM model).</small></p>\n");
    return s.append("</body>\n</html>\n").toString();
  }

  private static void headline(StringBuilder s, NpuReport r) {
    PpaResult n = r.npu();
    s.append("<table>\n<tr><th class=\"l\">NPU (180 nm)</th><th>std-cell area (mm&sup2;)</th><th>SRAM (mm&sup2;)</th>"
        + "<th>Fmax (MHz)</th><th>peak (GOPS)</th>");
    for (NpuReport.PhaseEnergy p : r.phases()) {
      s.append("<th>").append(Fmt.esc(p.phase())).append(" (&micro;J/token)</th>");
    }
    s.append("</tr>\n<tr><td class=\"l\">").append(Fmt.esc(n.design())).append("</td><td>")
        .append(Fmt.sig(n.synthesis().chipAreaUm2() / 1e6)).append("</td><td>")
        .append(Fmt.sig(n.sramAreaUm2(NodeScaling.Node.N180) / 1e6)).append("</td><td>")
        .append(Fmt.sig(n.timing().fmaxMhz())).append("</td><td>")
        .append(Fmt.sig(r.roofline().peakOpsPerSecond() / 1e9)).append("</td>");
    for (NpuReport.PhaseEnergy p : r.phases()) {
      s.append("<td>").append(Fmt.sig(p.energyPerTokenJ(NodeScaling.Node.N180) * 1e6)).append("</td>");
    }
    s.append("</tr>\n</table>\n");
  }

  private static void config(StringBuilder s, NpuReport r) {
    s.append("<h2>Configuration</h2>\n<table>\n");
    r.config().forEach((k, v) -> s.append("<tr><th class=\"l\">").append(Fmt.esc(k)).append("</th><td class=\"l\">")
        .append(Fmt.esc(v)).append("</td></tr>\n"));
    s.append("<tr><th class=\"l\">clock constraint</th><td class=\"l\">").append(Fmt.sig(r.clockNs()))
        .append(" ns</td></tr>\n</table>\n");
  }

  private static void ppa(StringBuilder s, NpuReport r) {
    s.append("<h2>PPA per unit (180 nm, measured)</h2>\n<div class=\"plots\">\n");
    List<NpuSvg.Slice> slices = new ArrayList<>();
    r.areaSplit().forEach(a -> slices.add(new NpuSvg.Slice(a.name(), a.um2())));
    s.append(NpuSvg.pie("Area by unit (µm², 180 nm)", slices, "µm²"));
    List<NpuSvg.Slice> fmax = new ArrayList<>();
    fmax.add(new NpuSvg.Slice("NPU top", r.npu().timing().fmaxMhz()));
    r.units().stream().filter(u -> u.ppa().timed())
        .forEach(u -> fmax.add(new NpuSvg.Slice(u.name(), u.ppa().timing().fmaxMhz())));
    s.append(NpuSvg.bars("Fmax per unit (MHz)", fmax, "MHz"));
    s.append("</div>\n<table>\n<tr><th class=\"l\">area share</th><th>&micro;m&sup2;</th><th>share</th>"
        + "<th class=\"l\">how obtained</th></tr>\n");
    double total = r.areaSplit().stream().mapToDouble(NpuReport.AreaSlice::um2).sum();
    for (NpuReport.AreaSlice a : r.areaSplit()) {
      s.append("<tr><td class=\"l\">").append(Fmt.esc(a.name())).append("</td><td>").append(Fmt.grouped(a.um2()))
          .append("</td><td>").append(Fmt.fixed(total == 0 ? 0 : 100 * a.um2() / total, 1)).append(" %</td><td class=\"l\">")
          .append(Fmt.esc(a.basis())).append("</td></tr>\n");
    }
    s.append("</table>\n<table>\n<tr><th class=\"l\">unit</th><th class=\"l\">block, parameters</th><th class=\"l\">instances in the npu top</th>"
        + "<th>std-cell area (&micro;m&sup2;)</th><th>cells</th><th>SRAM (&micro;m&sup2;)</th><th>Fmax (MHz)</th>"
        + "<th class=\"l\">critical path</th><th>depth</th><th>power at clock (mW)</th></tr>\n");
    unitRow(s, "NPU top", "npu", "(the top)", r.npu());
    for (NpuReport.Unit u : r.units()) {
      StringBuilder p = new StringBuilder(u.block());
      u.params().forEach((k, v) -> p.append(' ').append(k).append('=').append(v));
      unitRow(s, u.name(), p.toString(), u.inTop() ? String.join(", ", u.instances()) : "none", u.ppa());
    }
    s.append("</table>\n");
  }

  /** What the unit table says of a unit whose area is its share of the top's synthesis. */
  static final String NOT_TIMED = "not timed on its own: its area is its share of the NPU top's hierarchical "
      + "synthesis (the top's Fmax and power cover it)";

  private static void unitRow(StringBuilder s, String name, String block, String instances, PpaResult p) {
    s.append("<tr><td class=\"l\">").append(Fmt.esc(name)).append("</td><td class=\"l\"><small>").append(Fmt.esc(block))
        .append("</small></td><td class=\"l\"><small>").append(Fmt.esc(instances)).append("</small></td><td>")
        .append(Fmt.grouped(p.synthesis().chipAreaUm2())).append("</td><td>").append(Fmt.grouped(p.synthesis().cellCount()))
        .append("</td><td>").append(Fmt.grouped(p.sramAreaUm2(NodeScaling.Node.N180))).append("</td><td>");
    if (!p.timed()) {
      s.append("&mdash;</td><td class=\"l\" colspan=\"3\"><small>").append(Fmt.esc(NOT_TIMED))
          .append("</small></td></tr>\n");
      return;
    }
    s.append(Fmt.sig(p.timing().fmaxMhz())).append("</td><td class=\"l\"><small>")
        .append(Fmt.esc(p.timing().startpoint())).append(" &rarr; ").append(Fmt.esc(p.timing().endpoint()))
        .append("</small></td><td>").append(p.timing().logicDepth()).append("</td><td>")
        .append(Fmt.sig(p.power().totalMw())).append("</td></tr>\n");
  }

  private static void cycles(StringBuilder s, NpuReport r) {
    s.append("<h2>Cycle model against the RTL</h2>\n<p>Each program ran on the generated NPU in Verilator and on the "
        + "golden ISA simulator with its analytical cycle model (<code>npu-isa</code> <code>CycleModel</code>).</p>\n"
        + "<div class=\"plots\">\n");
    List<NpuSvg.Point> pts = new ArrayList<>();
    for (NpuReport.CyclePoint c : r.cycles()) {
      pts.add(new NpuSvg.Point(c.program(), c.modelCycles(), c.rtlCycles(), c.bitExact()
          && c.modelCycles() == c.rtlCycles()));
    }
    s.append(NpuSvg.scatter("Model vs RTL cycles (" + r.cycles().size() + " programs)", "model cycles", "RTL cycles",
        pts));
    s.append("</div>\n<table>\n<tr><th class=\"l\">program</th><th class=\"l\">kind</th><th>model cycles</th>"
        + "<th>RTL cycles</th><th>RTL / model</th><th>memory bit-exact</th><th>all counters equal</th></tr>\n");
    for (NpuReport.CyclePoint c : r.cycles()) {
      s.append("<tr><td class=\"l\">").append(Fmt.esc(c.program())).append("</td><td class=\"l\">")
          .append(Fmt.esc(c.kind())).append("</td><td>").append(Fmt.grouped(c.modelCycles())).append("</td><td>")
          .append(Fmt.grouped(c.rtlCycles())).append("</td><td>")
          .append(Fmt.fixed(c.modelCycles() == 0 ? 0 : (double) c.rtlCycles() / c.modelCycles(), 4))
          .append("</td><td>").append(c.bitExact() ? "yes" : "<b class=\"note\">no</b>").append("</td><td>")
          .append(c.countersEqual() ? "yes" : "<span class=\"note\">differ: "
              + Fmt.esc(String.join(", ", c.differingCounters())) + "</span>").append("</td></tr>\n");
    }
    s.append("</table>\n");
  }

  private static void energy(StringBuilder s, NpuReport r) {
    s.append("<h2>Energy per token</h2>\n");
    if (r.phases().stream().anyMatch(NpuReport.PhaseEnergy::proxy)) {
      s.append("<p class=\"proxy\"><b>GEMM-only proxy.</b> The decoder is not lowered to NPU programs yet: these "
          + "counters come from an <code>npu-isa</code> program of the model's per-token GEMMs (weights, and "
          + "attention scores and values as GEMMs) with their DMA, run on the NPU. Norms, SoftMax, RoPE and "
          + "activations (Vector DSP, PPM) are not counted.</p>\n");
    }
    List<String> series = new ArrayList<>();
    List<NpuSvg.Stack> stacks = new ArrayList<>();
    for (NpuReport.PhaseEnergy p : r.phases()) {
      EnergyEstimate e = p.estimates().get(NodeScaling.Node.N180);
      if (series.isEmpty()) {
        series.addAll(e.byUnitPj().keySet());
      }
      List<Double> parts = new ArrayList<>();
      for (String k : series) {
        parts.add(e.byUnitPj().getOrDefault(k, 0.0) / p.tokens() / 1e6);
      }
      stacks.add(new NpuSvg.Stack(p.phase() + " (" + p.tokens() + " tok)", parts));
    }
    s.append("<div class=\"plots\">\n").append(NpuSvg.stacked("Energy per token by unit, 180 nm (µJ)", "µJ per token",
        series, stacks)).append("</div>\n");
    s.append("<table>\n<tr><th class=\"l\">phase</th><th class=\"l\">source</th><th>tokens</th><th>cycles</th>"
        + "<th>MACs</th><th>DMA bytes</th>");
    for (NodeScaling.Node n : NodeScaling.Node.values()) {
      s.append("<th>J/token ").append(n.nm).append(" nm</th>");
    }
    s.append("<th>TOPS/W 180 nm</th><th>TOPS/W 7 nm</th></tr>\n");
    for (NpuReport.PhaseEnergy p : r.phases()) {
      s.append("<tr><td class=\"l\">").append(Fmt.esc(p.phase())).append("</td><td class=\"l\"><small>")
          .append(Fmt.esc(p.source())).append("</small></td><td>").append(p.tokens()).append("</td><td>")
          .append(Fmt.grouped(p.counters().getOrDefault("cycles", 0L))).append("</td><td>")
          .append(Fmt.grouped(p.counters().getOrDefault("macs", 0L))).append("</td><td>")
          .append(Fmt.grouped(p.counters().getOrDefault("dmaLoadBytes", 0L) + p.counters().getOrDefault("dmaStoreBytes", 0L)))
          .append("</td>");
      for (NodeScaling.Node n : NodeScaling.Node.values()) {
        s.append("<td>").append(Fmt.sig(p.energyPerTokenJ(n))).append("</td>");
      }
      s.append("<td>").append(Fmt.sig(p.estimates().get(NodeScaling.Node.N180).topsPerWatt())).append("</td><td>")
          .append(Fmt.sig(p.estimates().get(NodeScaling.Node.N7).topsPerWatt())).append("</td></tr>\n");
    }
    s.append("</table>\n<table>\n<tr><th class=\"l\">unit</th>");
    r.phases().forEach(p -> s.append("<th>").append(Fmt.esc(p.phase())).append(" pJ/token</th><th>share</th>"));
    s.append("</tr>\n");
    for (int k = 0; k < series.size(); k++) {
      s.append("<tr><td class=\"l\">").append(Fmt.esc(series.get(k))).append("</td>");
      for (NpuReport.PhaseEnergy p : r.phases()) {
        EnergyEstimate e = p.estimates().get(NodeScaling.Node.N180);
        double v = e.byUnitPj().getOrDefault(series.get(k), 0.0);
        s.append("<td>").append(Fmt.sig(v / p.tokens())).append("</td><td>")
            .append(Fmt.fixed(e.totalPj() == 0 ? 0 : 100 * v / e.totalPj(), 1)).append(" %</td>");
      }
      s.append("</tr>\n");
    }
    s.append("</table>\n");
    table(s, r.energyTable(), r.energyTableSource());
  }

  private static void table(StringBuilder s, EnergyTable t, String source) {
    s.append("<p>Energy per action (").append(Fmt.esc(source)).append("):</p>\n<table>\n<tr><th class=\"l\">action</th>"
        + "<th>pJ 180 nm</th><th>pJ 45 nm</th><th>pJ 7 nm</th><th class=\"l\">basis</th></tr>\n");
    for (EnergyTable.Entry e : t.entries().values()) {
      s.append("<tr><td class=\"l\">").append(e.action().name()).append("</td>");
      for (NodeScaling.Node n : NodeScaling.Node.values()) {
        s.append("<td>").append(Fmt.sig(t.pj(e.action(), n))).append("</td>");
      }
      s.append("<td class=\"l\"><small>").append(Fmt.esc(e.basis())).append("</small></td></tr>\n");
    }
    for (Map.Entry<org.llmnpu.reports.energy.EnergyAction, String> m : t.notMeasured().entrySet()) {
      s.append("<tr><td class=\"l\">").append(m.getKey().name()).append("</td><td colspan=\"3\">not measured</td>"
          + "<td class=\"l\"><small>").append(Fmt.esc(m.getValue())).append("</small></td></tr>\n");
    }
    s.append("</table>\n");
  }

  private static void roofline(StringBuilder s, NpuReport r) {
    NpuReport.Roofline rf = r.roofline();
    s.append("<h2>Roofline</h2>\n<p>Peak ").append(rf.macsPerCycle()).append(" MACs/cycle &times; ")
        .append(Fmt.sig(rf.clockMhz())).append(" MHz (the NPU's Fmax) = <b>").append(Fmt.sig(rf.peakOpsPerSecond() / 1e9))
        .append(" GOPS</b>; external memory ").append(Fmt.sig(rf.bytesPerCycle())).append(" B/cycle = <b>")
        .append(Fmt.sig(rf.bytesPerSecond() / 1e9)).append(" GB/s</b>. Each GEMM of the decoder ran alone (its "
            + "tiles with their DMA) through the cycle model; achieved = 2&middot;MACs / (cycles / clock).</p>\n");
    List<NpuSvg.Point> pts = new ArrayList<>();
    for (NpuReport.RoofPoint p : rf.points()) {
      double secs = p.cycles() / (rf.clockMhz() * 1e6);
      pts.add(new NpuSvg.Point(p.name(), p.opsPerByte(), secs == 0 ? 0 : 2.0 * p.macs() / secs,
          p.phase().equals("prefill")));
    }
    s.append("<div class=\"plots\">\n").append(NpuSvg.roofline("Roofline of the NPU with the decoder's GEMMs",
        rf.peakOpsPerSecond(), rf.bytesPerSecond(), pts)).append("</div>\n");
    s.append("<table>\n<tr><th class=\"l\">GEMM</th><th>MACs</th><th>DMA bytes</th><th>ops/byte</th><th>cycles</th>"
        + "<th>achieved GOPS</th><th>of peak</th><th>bound</th></tr>\n");
    double ridge = rf.peakOpsPerSecond() / rf.bytesPerSecond();
    for (NpuReport.RoofPoint p : rf.points()) {
      double secs = p.cycles() / (rf.clockMhz() * 1e6);
      double ops = secs == 0 ? 0 : 2.0 * p.macs() / secs;
      s.append("<tr><td class=\"l\">").append(Fmt.esc(p.name())).append("</td><td>").append(Fmt.grouped(p.macs()))
          .append("</td><td>").append(Fmt.grouped(p.bytes())).append("</td><td>").append(Fmt.sig(p.opsPerByte()))
          .append("</td><td>").append(Fmt.grouped(p.cycles())).append("</td><td>").append(Fmt.sig(ops / 1e9))
          .append("</td><td>").append(Fmt.fixed(100 * ops / rf.peakOpsPerSecond(), 1)).append(" %</td><td>")
          .append(p.opsPerByte() < ridge ? "memory" : "compute").append("</td></tr>\n");
    }
    s.append("</table>\n");
  }

  private static void trends(StringBuilder s, NpuReport r) {
    s.append("<h2>Seed trends</h2>\n<p>The seed papers' figures come from their own hardware and models; ours from "
        + "the generated RTL, its cycle model and the software stack. Trends, not absolute values, should agree."
        + "</p>\n<table>\n<tr><th class=\"l\">finding</th><th class=\"l\">seed</th><th class=\"l\">ours</th>"
        + "<th class=\"l\">verdict</th><th class=\"l\">why</th><th class=\"l\">our source</th></tr>\n");
    for (NpuReport.Trend t : r.trends()) {
      String cls = t.verdict().replace(" ", "");
      s.append("<tr class=\"").append(Fmt.esc(cls)).append("\"><td class=\"l\">").append(Fmt.esc(t.finding()))
          .append("</td><td class=\"l\">").append(Fmt.esc(t.seed())).append("</td><td class=\"l\">")
          .append(t.ours().isEmpty() ? "&mdash;" : Fmt.esc(t.ours())).append("</td><td class=\"l\"><b>")
          .append(Fmt.esc(t.verdict())).append("</b></td><td class=\"l\"><small>").append(Fmt.esc(t.why()))
          .append("</small></td><td class=\"l\"><small>").append(Fmt.esc(t.source())).append("</small></td></tr>\n");
    }
    s.append("</table>\n");
    for (NpuReport.Figure f : r.trendFigures()) {
      s.append("<h3>").append(Fmt.esc(f.caption())).append("</h3>\n").append(f.svg())
          .append("<p><small>").append(Fmt.esc(f.source())).append("</small></p>\n");
    }
  }
}
