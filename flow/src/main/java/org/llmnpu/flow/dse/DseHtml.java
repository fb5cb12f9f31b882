package org.llmnpu.flow.dse;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The sweep's HTML page, readable offline (inline CSS and SVG, no script): what was swept and how it was evaluated,
 * the pairwise scatter plots of the front's objectives ({@link ScatterSvg}), the front's points, and a table of every
 * point with its status, parameters, objectives and the source of each objective. No timestamps or wall times, so
 * the same results give the same bytes.
 */
final class DseHtml {
  private DseHtml() {
  }

  static String page(SweepFile sweep, List<PointRecord> records, List<Objective> front) {
    StringBuilder h = new StringBuilder();
    h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>DSE ").append(esc(sweep.name()))
        .append("</title>\n<style>body{font-family:sans-serif;margin:24px;max-width:1200px}"
            + "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:3px 6px;"
            + "text-align:right}th{background:#f2f2f2}td.l{text-align:left}.front{background:#fde8e8}"
            + ".failed{color:#a00}.plots svg{margin:4px;border:1px solid #eee}</style></head><body>\n");
    long done = records.stream().filter(PointRecord::done).count();
    h.append("<h1>Design-space sweep: ").append(esc(sweep.name())).append("</h1>\n<p>")
        .append(records.size()).append(" points (").append(done).append(" done, ").append(records.size() - done)
        .append(" failed); model ").append(esc(sweep.model())).append("; evaluation ").append(esc(sweep.evaluation()))
        .append(" (TTFT/TPOT: the cycle model of <code>npu estimate</code>); area: synthesis at ")
        .append(sig(sweep.synthesisClockNs())).append(" ns, figures at ").append(sweep.nodeNm())
        .append(" nm; energy: ").append(sweep.energyTable() == null ? "not measured (no energy table)"
            : "energy table " + esc(sweep.energyTable().getFileName().toString())).append(".</p>\n");
    h.append("<p>Swept: ").append(esc(String.join(", ", sweep.parameters().keySet())))
        .append(" (cartesian product, first parameter outermost). Front over: ")
        .append(front.isEmpty() ? "nothing measured" : esc(String.join(", ", front.stream()
            .map(o -> o.label + " (" + o.unit + ")").toList()))).append(", all minimized; red points are on it.")
        .append("</p>\n<div class=\"plots\">\n");
    List<PointRecord> finished = records.stream().filter(PointRecord::done).toList();
    for (int i = 0; i < front.size(); i++) {
      for (int j = i + 1; j < front.size(); j++) {
        Objective x = front.get(i);
        Objective y = front.get(j);
        List<ScatterSvg.Dot> dots = new ArrayList<>();
        finished.forEach(r -> dots.add(new ScatterSvg.Dot(r.point().id(), r.objective(x), r.objective(y),
            r.onFront())));
        h.append(ScatterSvg.plot(x, y, dots));
      }
    }
    h.append("</div>\n<h2>Points</h2>\n<table>\n<tr><th>id</th><th>status</th><th>front</th>");
    sweep.parameters().keySet().forEach(k -> h.append("<th>").append(esc(k)).append("</th>"));
    sweep.objectives().forEach(o -> h.append("<th>").append(esc(o.label)).append(" (").append(esc(o.unit))
        .append(")</th>"));
    h.append("</tr>\n");
    for (PointRecord r : records) {
      h.append("<tr").append(r.onFront() ? " class=\"front\"" : r.done() ? "" : " class=\"failed\"").append(">")
          .append("<td class=\"l\">").append(esc(r.point().id())).append("</td><td class=\"l\">")
          .append(r.done() ? "done" : "failed: " + esc(r.cause())).append("</td><td>")
          .append(r.onFront() ? "yes" : "").append("</td>");
      r.swept().values().forEach(v -> h.append("<td>").append(esc(v)).append("</td>"));
      sweep.objectives().forEach(o -> h.append("<td>").append(r.objective(o) == null
          ? (r.done() ? "not measured" : "") : sig(r.objective(o))).append("</td>"));
      h.append("</tr>\n");
    }
    h.append("</table>\n<h2>Sources of the objectives</h2>\n<ul>\n");
    for (PointRecord r : finished) {
      for (Map.Entry<String, com.fasterxml.jackson.databind.JsonNode> e
          : (Iterable<Map.Entry<String, com.fasterxml.jackson.databind.JsonNode>>) () -> r.result().path("sources")
              .fields()) {
        h.append("<li>").append(esc(r.point().id())).append(", ").append(esc(e.getKey())).append(": ")
            .append(esc(e.getValue().asText())).append("</li>\n");
      }
    }
    h.append("</ul>\n<p>Every point's full configuration: <code>pareto.json</code>, <code>points.csv</code>; wall "
        + "times (not deterministic): <code>wall-times.csv</code>.</p>\n</body></html>\n");
    return h.toString();
  }

  static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }

  /** Four significant digits: plain for magnitudes in [0.001, 1e7), else as {@code 4.537e-05}. */
  static String sig(double v) {
    if (v == 0 || !Double.isFinite(v)) {
      return String.valueOf(v == 0 ? 0 : v);
    }
    double a = Math.abs(v);
    return a >= 1e-3 && a < 1e7 ? new BigDecimal(v).round(new MathContext(4)).stripTrailingZeros().toPlainString()
        : String.format(java.util.Locale.ROOT, "%.3e", v);
  }
}
