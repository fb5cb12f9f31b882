package org.llmnpu.reports.html;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.llmnpu.reports.JsonOutput;
import org.llmnpu.reports.energy.EnergyEstimate;
import org.llmnpu.reports.npu.NpuReport;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.reports.ppa.PpaResult;

/**
 * {@code npu-report.json}: the whole-NPU report for scripts. {@code energyPerTokenJ} holds
 * joules per token for each phase at 180 nm (the measured node); {@code energy.phases[].byNode}
 * has every node.
 */
final class NpuJson {
  private NpuJson() {
  }

  static String render(NpuReport r) {
    ObjectNode root = JsonOutput.object();
    root.put("title", r.title());
    ObjectNode cfg = root.putObject("config");
    r.config().forEach(cfg::put);
    root.put("clockNs", r.clockNs());
    ppa(root.putObject("npu"), r.npu());
    ArrayNode units = root.putArray("units");
    for (NpuReport.Unit u : r.units()) {
      ObjectNode o = units.addObject();
      o.put("name", u.name()).put("block", u.block()).put("inTop", u.inTop());
      u.instances().forEach(o.putArray("instances")::add);
      ObjectNode p = o.putObject("params");
      u.params().forEach(p::put);
      ppa(o, u.ppa());
    }
    ArrayNode split = root.putArray("areaSplit");
    double total = r.areaSplit().stream().mapToDouble(NpuReport.AreaSlice::um2).sum();
    r.areaSplit().forEach(a -> split.addObject().put("name", a.name()).put("um2", a.um2())
        .put("share", total == 0 ? 0 : a.um2() / total).put("basis", a.basis()));
    ObjectNode cv = root.putObject("cycleValidation");
    cv.put("programs", r.cycles().size());
    cv.put("allCyclesEqual", r.cycles().stream().allMatch(c -> c.modelCycles() == c.rtlCycles()));
    cv.put("allBitExact", r.cycles().stream().allMatch(NpuReport.CyclePoint::bitExact));
    ArrayNode runs = cv.putArray("runs");
    r.cycles().forEach(c -> runs.addObject().put("program", c.program()).put("kind", c.kind())
        .put("modelCycles", c.modelCycles()).put("rtlCycles", c.rtlCycles()).put("bitExact", c.bitExact())
        .put("countersEqual", c.countersEqual()).set("differingCounters", JsonOutput.object().arrayNode()
        .addAll(c.differingCounters().stream().map(com.fasterxml.jackson.databind.node.TextNode::valueOf).toList())));
    ObjectNode ept = root.putObject("energyPerTokenJ");
    r.phases().forEach(p -> ept.put(p.phase(), p.energyPerTokenJ(NodeScaling.Node.N180)));
    root.put("energyPerTokenNode", "180 nm");
    ObjectNode energy = root.putObject("energy");
    energy.put("proxy", r.phases().stream().anyMatch(NpuReport.PhaseEnergy::proxy));
    ArrayNode phases = energy.putArray("phases");
    for (NpuReport.PhaseEnergy p : r.phases()) {
      ObjectNode o = phases.addObject();
      o.put("phase", p.phase()).put("tokens", p.tokens()).put("source", p.source()).put("proxy", p.proxy());
      ObjectNode c = o.putObject("counters");
      p.counters().forEach(c::put);
      ObjectNode by = o.putObject("byNode");
      for (NodeScaling.Node n : NodeScaling.Node.values()) {
        EnergyEstimate e = p.estimates().get(n);
        ObjectNode no = by.putObject(n.nm + "nm");
        no.put("totalPj", e.totalPj()).put("energyPerTokenJ", p.energyPerTokenJ(n)).put("topsPerWatt", e.topsPerWatt());
        ObjectNode u = no.putObject("byUnitPj");
        e.byUnitPj().forEach(u::put);
      }
    }
    energy.put("tableSource", r.energyTableSource());
    try {
      energy.set("table", new ObjectMapper().readTree(r.energyTable().json()));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("energy table JSON: " + e.getMessage(), e);
    }
    NpuReport.Roofline rf = r.roofline();
    ObjectNode roof = root.putObject("roofline");
    roof.put("clockMhz", rf.clockMhz()).put("macsPerCycle", rf.macsPerCycle()).put("bytesPerCycle", rf.bytesPerCycle())
        .put("peakOpsPerSecond", rf.peakOpsPerSecond()).put("bytesPerSecond", rf.bytesPerSecond());
    ArrayNode pts = roof.putArray("gemms");
    rf.points().forEach(p -> pts.addObject().put("name", p.name()).put("phase", p.phase()).put("macs", p.macs())
        .put("bytes", p.bytes()).put("cycles", p.cycles()).put("opsPerByte", p.opsPerByte())
        .put("opsPerSecond", p.cycles() == 0 ? 0 : 2.0 * p.macs() / (p.cycles() / (rf.clockMhz() * 1e6))));
    ArrayNode trends = root.putArray("seedTrends");
    r.trends().forEach(t -> trends.addObject().put("finding", t.finding()).put("seed", t.seed()).put("ours", t.ours())
        .put("verdict", t.verdict()).put("why", t.why()).put("source", t.source()));
    SocSectionHtml.json(root, r.soc());
    ArrayNode notes = root.putArray("notes");
    r.notes().forEach(notes::add);
    return JsonOutput.indented(root) + "\n";
  }

  private static void ppa(ObjectNode o, PpaResult p) {
    o.put("design", p.design()).put("stdCellAreaUm2", p.synthesis().chipAreaUm2())
        .put("cells", p.synthesis().cellCount()).put("flipFlops", p.synthesis().flipFlops())
        .put("sramAreaUm2", p.sramAreaUm2(NodeScaling.Node.N180));
    if (!p.timed()) {
      o.put("timed", false).put("basis", NpuHtml.NOT_TIMED);
      return;
    }
    o.put("fmaxMhz", p.timing().fmaxMhz())
        .put("criticalDelayNs", p.timing().criticalDelayNs()).put("powerMw", p.power().totalMw());
    o.putObject("criticalPath").put("start", p.timing().startpoint()).put("end", p.timing().endpoint())
        .put("logicDepth", p.timing().logicDepth());
  }
}
