package org.llmnpu.reports.html;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.llmnpu.reports.npu.SocSection;

/**
 * The SoC section of the whole-NPU report ({@link SocSection}): in {@code index.html} its charts as inline SVG
 * horizontal bars ({@link NpuSvg#bars}) and its findings as a table (our figure, the paper's, agrees or not and
 * why); in {@code npu-report.json} the object {@code soc} with {@code intro}, {@code charts} and {@code findings}.
 */
public final class SocSectionHtml {
  private SocSectionHtml() {
  }

  /** The section's HTML (heading, intro, charts, findings table); empty for null. */
  public static String html(SocSection soc) {
    StringBuilder s = new StringBuilder();
    html(s, soc);
    return s.toString();
  }

  static void html(StringBuilder s, SocSection soc) {
    if (soc == null) {
      return;
    }
    s.append("<h2>The NPU inside a heterogeneous SoC</h2>\n<p>").append(Fmt.esc(soc.intro())).append("</p>\n")
        .append("<div class=\"plots\">\n");
    for (SocSection.Chart c : soc.charts()) {
      s.append(NpuSvg.bars(c.title(), c.bars().stream().map(b -> new NpuSvg.Slice(b.label(), b.value())).toList(),
          c.unit(), 160));
    }
    s.append("</div>\n<table>\n<tr><th class=\"l\">finding</th><th class=\"l\">analysis</th><th class=\"l\">ours</th>"
        + "<th class=\"l\">paper</th><th class=\"l\">agrees</th><th class=\"l\">why</th></tr>\n");
    for (SocSection.Finding f : soc.findings()) {
      s.append("<tr class=\"").append(f.agrees() ? "agrees" : "disagrees").append("\"><td class=\"l\">")
          .append(Fmt.esc(f.id())).append("</td><td class=\"l\">").append(Fmt.esc(f.source()))
          .append("</td><td class=\"l\">").append(Fmt.esc(f.ours())).append("</td><td class=\"l\">")
          .append(Fmt.esc(f.paper())).append("</td><td class=\"l\"><b>").append(f.agrees() ? "yes" : "no")
          .append("</b></td><td class=\"l\"><small>").append(Fmt.esc(f.why())).append("</small></td></tr>\n");
    }
    s.append("</table>\n");
  }

  static void json(ObjectNode root, SocSection soc) {
    if (soc == null) {
      return;
    }
    ObjectNode o = root.putObject("soc");
    o.put("intro", soc.intro());
    ArrayNode charts = o.putArray("charts");
    for (SocSection.Chart c : soc.charts()) {
      ObjectNode co = charts.addObject().put("title", c.title()).put("unit", c.unit());
      ArrayNode bars = co.putArray("bars");
      c.bars().forEach(b -> bars.addObject().put("label", b.label()).put("value", b.value()));
    }
    ArrayNode findings = o.putArray("findings");
    soc.findings().forEach(f -> findings.addObject().put("source", f.source()).put("id", f.id()).put("ours", f.ours())
        .put("paper", f.paper()).put("agrees", f.agrees()).put("why", f.why()));
  }
}
