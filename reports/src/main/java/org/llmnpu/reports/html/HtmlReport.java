package org.llmnpu.reports.html;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.llmnpu.reports.ppa.NodeFigures;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.reports.ppa.SramMacro;
import org.llmnpu.reports.ppa.SramModel;

/**
 * {@code index.html}: one self-contained page (inline CSS and SVG, no scripts, no external
 * resources) with a summary table, sweep plots of area, Fmax and power against the swept
 * parameter, and per point the critical path, power split, cells by type, SRAM macros and the
 * node-scaled figures, followed by the method and its sources.
 */
final class HtmlReport {
  private static final int TOP_CELL_TYPES = 12;
  private static final String CSS = "body{font-family:sans-serif;margin:24px;color:#222;max-width:1100px}"
      + "table{border-collapse:collapse;margin:8px 0 16px}th,td{border:1px solid #bbb;padding:3px 8px;"
      + "text-align:right}th{background:#eef}td.l,th.l{text-align:left}h2{border-bottom:2px solid #88a}"
      + ".note{color:#833}.plots svg{margin:4px 12px 12px 0;border:1px solid #ddd}small{color:#555}";

  private HtmlReport() {
  }

  static String render(PpaReport r) {
    StringBuilder s = new StringBuilder();
    s.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>")
        .append(Fmt.esc(r.title())).append("</title>\n<style>").append(CSS).append("</style>\n</head>\n<body>\n");
    s.append("<h1>").append(Fmt.esc(r.title())).append("</h1>\n");
    s.append("<p>Clock period <b>").append(Fmt.sig(r.clockNs())).append(" ns</b> (")
        .append(Fmt.sig(1000 / r.clockNs())).append(" MHz); switching activity <b>")
        .append(Fmt.sig(r.activity())).append(" toggles/cycle</b> on the data inputs (see each power table)");
    r.portActivities().forEach((port, a) -> s.append(", port ").append(Fmt.esc(port)).append(": ")
        .append(Fmt.sig(a)));
    s.append("; ").append(r.flattened() ? "flattened synthesis" : "hierarchical synthesis (each distinct module once)")
        .append("; library ").append(Fmt.esc(r.library())).append(" (OSU 0.18 &micro;m, 1.8 V); ")
        .append(Fmt.esc(r.yosysVersion())).append("; ").append(Fmt.esc(r.staVersion())).append(".</p>\n");
    summary(s, r);
    if (r.points().size() > 1) {
      sweepPlots(s, r);
    }
    for (PpaResult p : r.points()) {
      details(s, r, p);
    }
    method(s);
    return s.append("</body>\n</html>\n").toString();
  }

  private static void summary(StringBuilder s, PpaReport r) {
    s.append("<h2>Summary (180 nm, measured)</h2>\n<table>\n<tr><th class=\"l\">")
        .append(Fmt.esc(r.sweptParam() == null ? "design" : r.sweptParam()))
        .append("</th><th>std-cell area (&micro;m&sup2;)</th><th>std cells</th><th>flip-flops</th>"
            + "<th>SRAM bits</th><th>SRAM area, model (&micro;m&sup2;)</th><th>critical path (ns)</th>"
            + "<th>Fmax (MHz)</th><th>slack at clock (ns)</th><th>power at clock (mW)</th></tr>\n");
    for (PpaResult p : r.points()) {
      long bits = p.synthesis().macros().stream().mapToLong(m -> m.bits() * m.instances()).sum();
      s.append("<tr><td class=\"l\">").append(Fmt.esc(r.label(p))).append("</td><td>")
          .append(Fmt.grouped(p.synthesis().chipAreaUm2())).append("</td><td>").append(p.synthesis().cellCount())
          .append("</td><td>").append(p.synthesis().flipFlops()).append("</td><td>").append(bits)
          .append("</td><td>").append(Fmt.grouped(p.sramAreaUm2(NodeScaling.Node.N180))).append("</td><td>")
          .append(Fmt.sig(p.timing().criticalDelayNs())).append("</td><td>").append(Fmt.sig(p.timing().fmaxMhz()))
          .append("</td><td>").append(Fmt.sig(p.timing().slackNs())).append("</td><td>")
          .append(Fmt.sig(p.power().totalMw())).append("</td></tr>\n");
    }
    s.append("</table>\n");
  }

  private static void sweepPlots(StringBuilder s, PpaReport r) {
    List<String> xs = r.points().stream().map(r::label).toList();
    String x = r.sweptParam();
    s.append("<h2>Sweep of ").append(Fmt.esc(x)).append("</h2>\n<div class=\"plots\">\n");
    List<SvgPlot.Series> area = new ArrayList<>(List.of(new SvgPlot.Series("standard cells",
        r.points().stream().map(p -> p.synthesis().chipAreaUm2()).toList())));
    if (r.points().stream().anyMatch(p -> !p.synthesis().macros().isEmpty())) {
      area.add(new SvgPlot.Series("std cells + SRAM (model)", r.points().stream()
          .map(p -> p.synthesis().chipAreaUm2() + p.sramAreaUm2(NodeScaling.Node.N180)).toList()));
    }
    s.append(SvgPlot.lines("Area at 180 nm", x, "area (um^2)", xs, area));
    s.append(SvgPlot.lines("Fmax at 180 nm", x, "Fmax (MHz)", xs, List.of(
        new SvgPlot.Series("Fmax", r.points().stream().map(p -> p.timing().fmaxMhz()).toList()))));
    s.append(SvgPlot.lines("Power at " + Fmt.sig(r.clockNs()) + " ns clock, 180 nm", x, "power (mW)", xs, List.of(
        new SvgPlot.Series("total", r.points().stream().map(p -> p.power().totalMw()).toList()),
        new SvgPlot.Series("internal", r.points().stream().map(p -> p.power().internalMw()).toList()),
        new SvgPlot.Series("switching", r.points().stream().map(p -> p.power().switchingMw()).toList()))));
    s.append("</div>\n");
  }

  private static void details(StringBuilder s, PpaReport r, PpaResult p) {
    s.append("<h2>").append(Fmt.esc(p.design()));
    if (!p.params().isEmpty()) {
      List<String> kv = new ArrayList<>();
      p.params().forEach((k, v) -> kv.add(k + "=" + v));
      s.append(" <small>").append(Fmt.esc(String.join(", ", kv))).append("</small>");
    }
    s.append("</h2>\n");
    p.synthesis().notes().forEach(n -> s.append("<p class=\"note\">").append(Fmt.esc(n)).append("</p>\n"));
    var t = p.timing();
    s.append("<h3>Critical path</h3>\n<table>\n");
    row(s, "clock", Fmt.sig(t.clockNs()) + " ns on " + (t.clockPort().isEmpty() ? "a virtual clock" : t.clockPort()));
    row(s, "startpoint", t.startpoint());
    row(s, "endpoint", t.endpoint());
    row(s, "logic depth", t.logicDepth() + " cells");
    row(s, "data arrival", Fmt.sig(t.arrivalNs()) + " ns");
    row(s, "slack", Fmt.sig(t.slackNs()) + " ns" + (t.slackNs() < 0 ? " (VIOLATED)" : " (met)"));
    row(s, "critical delay (period - slack)", Fmt.sig(t.criticalDelayNs()) + " ns");
    row(s, "Fmax", Fmt.sig(t.fmaxMhz()) + " MHz");
    s.append("</table>\n");
    var pw = p.power();
    s.append("<h3>Power at ").append(Fmt.sig(t.clockNs())).append(" ns (standard cells)</h3>\n<table>\n")
        .append("<tr><th>internal (mW)</th><th>switching (mW)</th><th>leakage (mW)</th><th>total (mW)</th>"
            + "<th>energy per cycle (pJ)</th></tr>\n<tr><td>").append(Fmt.sig(pw.internalMw())).append("</td><td>")
        .append(Fmt.sig(pw.switchingMw())).append("</td><td>").append(Fmt.sig(pw.leakageMw())).append("</td><td>")
        .append(Fmt.sig(pw.totalMw())).append("</td><td>").append(Fmt.sig(pw.energyPerCyclePj(t.clockNs())))
        .append("</td></tr>\n</table>\n<p><small>Activity ").append(Fmt.sig(pw.activity()))
        .append(" toggles/cycle set on ").append(Fmt.esc(pw.activityModel())).append(".</small></p>\n");
    cells(s, p);
    macros(s, p);
    nodes(s, p);
  }

  private static void cells(StringBuilder s, PpaResult p) {
    List<Map.Entry<String, Double>> byArea = p.synthesis().areaByTypeUm2().entrySet().stream()
        .sorted(Map.Entry.<String, Double>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
        .toList();
    s.append("<h3>Standard cells by type</h3>\n<table>\n<tr><th class=\"l\">cell</th><th>count</th>"
        + "<th>area (&micro;m&sup2;)</th><th>share</th></tr>\n");
    for (var e : byArea) {
      s.append("<tr><td class=\"l\">").append(Fmt.esc(e.getKey())).append("</td><td>")
          .append(p.synthesis().cellsByType().get(e.getKey())).append("</td><td>").append(Fmt.grouped(e.getValue()))
          .append("</td><td>").append(Fmt.fixed(100 * e.getValue() / p.synthesis().chipAreaUm2(), 1))
          .append(" %</td></tr>\n");
    }
    s.append("<tr><th class=\"l\">total</th><th>").append(p.synthesis().cellCount()).append("</th><th>")
        .append(Fmt.grouped(p.synthesis().chipAreaUm2())).append("</th><th>100 %</th></tr>\n</table>\n");
    List<Map.Entry<String, Double>> top = byArea.subList(0, Math.min(TOP_CELL_TYPES, byArea.size()));
    s.append("<div class=\"plots\">").append(SvgPlot.bars("Area by cell type (180 nm)", "area (um^2)",
        top.stream().map(Map.Entry::getKey).toList(), top.stream().map(Map.Entry::getValue).toList()))
        .append("</div>\n");
  }

  private static void macros(StringBuilder s, PpaResult p) {
    List<SramMacro> macros = p.synthesis().macros().stream().sorted(Comparator.comparing(SramMacro::cellType)).toList();
    s.append("<h3>SRAM macros (not in the standard-cell area)</h3>\n");
    if (macros.isEmpty()) {
      s.append("<p>None: the design lists no memories.</p>\n");
      return;
    }
    s.append("<table>\n<tr><th class=\"l\">memory</th><th>words &times; bits</th><th>ports (R/W)</th>"
        + "<th>read</th><th>copies</th>");
    for (NodeScaling.Node n : NodeScaling.Node.values()) {
      s.append("<th>area/copy ").append(n.nm).append(" nm (&micro;m&sup2;)</th>");
    }
    for (NodeScaling.Node n : NodeScaling.Node.values()) {
      s.append("<th>energy/access ").append(n.nm).append(" nm (pJ)</th>");
    }
    s.append("</tr>\n");
    for (SramMacro m : macros) {
      s.append("<tr><td class=\"l\">").append(Fmt.esc(m.module() + "." + m.name())).append("</td><td>")
          .append(m.depth()).append(" &times; ").append(m.width()).append("</td><td>").append(m.readPorts())
          .append("/").append(m.writePorts()).append("</td><td>").append(m.readClocked() ? "sync" : "async")
          .append("</td><td>").append(m.instances()).append("</td>");
      for (NodeScaling.Node n : NodeScaling.Node.values()) {
        s.append("<td>").append(Fmt.sig(SramModel.areaUm2(m, n))).append("</td>");
      }
      for (NodeScaling.Node n : NodeScaling.Node.values()) {
        s.append("<td>").append(Fmt.sig(SramModel.accessEnergyPj(m, n))).append("</td>");
      }
      s.append("</tr>\n");
    }
    s.append("</table>\n");
  }

  private static void nodes(StringBuilder s, PpaResult p) {
    s.append("<h3>Process nodes (45 nm and 7 nm scaled with Stillmaker &amp; Baas 2017)</h3>\n<table>\n"
        + "<tr><th>node</th><th>Vdd (V)</th><th class=\"l\">source</th><th>std-cell area (&micro;m&sup2;)</th>"
        + "<th>SRAM area (&micro;m&sup2;)</th><th>total area (&micro;m&sup2;)</th><th>critical path (ns)</th>"
        + "<th>Fmax (MHz)</th><th>std-cell energy/cycle (pJ)</th><th>std-cell power at Fmax (mW)</th></tr>\n");
    int depth = p.timing().logicDepth();
    for (NodeFigures n : p.nodes()) {
      s.append("<tr><td>").append(n.nm()).append(" nm</td><td>").append(Fmt.fixed(n.vdd(), 1))
          .append("</td><td class=\"l\">").append(n.measured() ? "measured" : "scaled estimate").append("</td><td>")
          .append(Fmt.sig(n.logicAreaUm2())).append("</td><td>").append(Fmt.sig(n.sramAreaUm2())).append("</td><td>")
          .append(Fmt.sig(n.totalAreaUm2())).append("</td><td>").append(Fmt.sig(n.criticalDelayNs()))
          .append("</td><td>").append(Fmt.sig(n.fmaxMhz())).append("</td><td>").append(Fmt.sig(n.logicEnergyPerCyclePj()))
          .append("</td><td>").append(Fmt.sig(n.logicPowerAtFmaxMw())).append("</td></tr>\n");
    }
    s.append("</table>\n<p>The scaled rows are estimates, not measurements: they scale the 180 nm cell delays of the "
        + "same ").append(depth).append("-cell critical path and ignore wires, which dominate at 7 nm, so a scaled "
        + "Fmax is an upper bound for this pipeline depth. A block with fewer cells per stage (more pipeline "
        + "stages) is what runs faster at any node.</p>\n");
  }

  private static void row(StringBuilder s, String k, String v) {
    s.append("<tr><th class=\"l\">").append(Fmt.esc(k)).append("</th><td class=\"l\">").append(Fmt.esc(v))
        .append("</td></tr>\n");
  }

  private static void method(StringBuilder s) {
    s.append("<h2>Method and sources</h2>\n<ul>\n")
        .append("<li>Synthesis: Yosys <code>synth</code>, <code>dfflibmap</code>, <code>abc</code> and "
            + "<code>stat -liberty</code> against the OSU 0.18 &micro;m standard cells (Debian qflow-tech-osu018). "
            + "Area is cell area only (no placement, routing or clock tree). Unless flattened, each distinct module "
            + "is synthesized once and counted per instance, so logic is not optimized across module "
            + "boundaries.</li>\n")
        .append("<li>Memories the generator lists are SRAM macros: Yosys keeps them as black boxes, so they are "
            + "not in the standard-cell area; their area and energy come from a model: ")
        .append(Fmt.esc(SramModel.SOURCES)).append(". Timing paths end and start at the macro pins (zero setup, "
            + "zero clock-to-output); the macro's own access time is not included.</li>\n")
        .append("<li>Timing and power: OpenSTA with ideal clocks, zero input/output delay relative to the clock, "
            + "the reset port excluded from timing (it is buffered at layout), "
            + "no wire load. Power is from the stated switching activity on the data inputs, propagated through "
            + "the logic by OpenSTA (no simulation trace); SRAM power is not in it.</li>\n")
        .append("<li>Scaling to 45 nm (1.0 V) and 7 nm (0.7 V) from 180 nm (1.8 V): ")
        .append(Fmt.esc(NodeScaling.CITATION)).append("; area by the paper's node factors, delay and energy by its "
            + "fitted polynomials in the supply voltage. Power at Fmax = energy per cycle &times; Fmax.</li>\n")
        .append("</ul>\n");
  }
}
