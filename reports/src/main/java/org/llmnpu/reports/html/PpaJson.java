package org.llmnpu.reports.html;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.llmnpu.reports.JsonOutput;
import org.llmnpu.reports.ppa.NodeFigures;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.reports.ppa.SramMacro;
import org.llmnpu.reports.ppa.SramModel;

/**
 * {@code ppa.json}: the report's numbers for scripts. Every numeric field name ends in its
 * unit ({@code Um2}, {@code Ns}, {@code Mhz}, {@code Mw}, {@code Pj}, {@code V}); field order is
 * fixed, so identical inputs give identical bytes.
 */
final class PpaJson {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private PpaJson() {
  }

  static String render(PpaReport r) {
    ObjectNode root = JSON.createObjectNode();
    root.put("block", r.block());
    root.put("sweptParam", r.sweptParam());
    ObjectNode settings = root.putObject("settings");
    settings.put("clockNs", r.clockNs());
    settings.put("inputActivity", r.activity());
    r.portActivities().forEach(settings.putObject("portActivities")::put);
    settings.put("synthesis", r.flattened() ? "flattened" : "hierarchical (each distinct module once)");
    settings.put("library", r.library());
    settings.put("yosys", r.yosysVersion());
    settings.put("sta", r.staVersion());
    settings.put("scaling", NodeScaling.CITATION);
    settings.put("sramModel", SramModel.SOURCES);
    ArrayNode points = root.putArray("points");
    for (PpaResult p : r.points()) {
      points.add(point(p));
    }
    return JsonOutput.indented(root) + "\n";
  }

  private static ObjectNode point(PpaResult p) {
    ObjectNode o = JSON.createObjectNode();
    o.put("design", p.design());
    p.params().forEach(o.putObject("params")::put);
    ObjectNode synth = o.putObject("synthesis");
    synth.put("stdCellAreaUm2", p.synthesis().chipAreaUm2());
    synth.put("stdCells", p.synthesis().cellCount());
    synth.put("flipFlops", p.synthesis().flipFlops());
    p.synthesis().cellsByType().forEach(synth.putObject("cellsByType")::put);
    p.synthesis().areaByTypeUm2().forEach(synth.putObject("areaByTypeUm2")::put);
    p.synthesis().notes().forEach(synth.putArray("notes")::add);
    ObjectNode t = o.putObject("timing");
    t.put("clockNs", p.timing().clockNs());
    t.put("clockPort", p.timing().clockPort().isEmpty() ? "(virtual)" : p.timing().clockPort());
    t.put("startpoint", p.timing().startpoint());
    t.put("endpoint", p.timing().endpoint());
    t.put("logicDepth", p.timing().logicDepth());
    t.put("arrivalNs", p.timing().arrivalNs());
    t.put("slackNs", p.timing().slackNs());
    t.put("criticalDelayNs", p.timing().criticalDelayNs());
    t.put("fmaxMhz", p.timing().fmaxMhz());
    ObjectNode pw = o.putObject("power");
    pw.put("activity", p.power().activity());
    pw.put("activitySetOn", p.power().activityModel());
    pw.put("internalMw", p.power().internalMw());
    pw.put("switchingMw", p.power().switchingMw());
    pw.put("leakageMw", p.power().leakageMw());
    pw.put("totalMw", p.power().totalMw());
    ArrayNode macros = o.putArray("sramMacros");
    for (SramMacro m : p.synthesis().macros()) {
      ObjectNode mo = macros.addObject();
      mo.put("module", m.module());
      mo.put("name", m.name());
      mo.put("width", m.width());
      mo.put("depth", m.depth());
      mo.put("readPorts", m.readPorts());
      mo.put("writePorts", m.writePorts());
      mo.put("readClocked", m.readClocked());
      mo.put("copies", m.instances());
      for (NodeScaling.Node n : NodeScaling.Node.values()) {
        mo.put("areaPerCopyUm2At" + n.nm + "nm", SramModel.areaUm2(m, n));
        mo.put("energyPerAccessPjAt" + n.nm + "nm", SramModel.accessEnergyPj(m, n));
      }
    }
    ArrayNode nodes = o.putArray("nodes");
    for (NodeFigures n : p.nodes()) {
      ObjectNode no = nodes.addObject();
      no.put("nodeNm", n.nm());
      no.put("vddV", n.vdd());
      no.put("measured", n.measured());
      no.put("logicAreaUm2", n.logicAreaUm2());
      no.put("sramAreaUm2", n.sramAreaUm2());
      no.put("totalAreaUm2", n.totalAreaUm2());
      no.put("criticalDelayNs", n.criticalDelayNs());
      no.put("fmaxMhz", n.fmaxMhz());
      // a scaled Fmax scales cell delays only (no wires): an estimate for this critical path's depth
      no.put("fmaxKind", n.measured() ? "measured" : "scaled estimate");
      no.put("logicEnergyPerCyclePj", n.logicEnergyPerCyclePj());
      no.put("logicPowerAtFmaxMw", n.logicPowerAtFmaxMw());
    }
    return o;
  }
}
