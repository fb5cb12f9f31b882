package org.llmnpu.reports.html;

import java.util.Locale;
import org.llmnpu.reports.OutputDirectory;
import org.llmnpu.reports.energy.EnergyEstimate;
import org.llmnpu.reports.npu.NpuReport;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.reports.ppa.PpaResult;

/**
 * Writes the whole-NPU report into an {@link OutputDirectory} (atomic files, never deleting what
 * the toolkit did not write): {@code index.html} (self-contained, readable offline),
 * {@code npu-report.json}, and CSVs {@code units.csv}, {@code cycles.csv}, {@code energy.csv},
 * {@code roofline.csv}, {@code trends.csv}. No timestamps: same inputs, same bytes.
 */
public final class NpuReportWriter {
  /** The files written, in order. */
  public static final java.util.List<String> FILES = java.util.List.of("index.html", "npu-report.json", "units.csv",
      "cycles.csv", "energy.csv", "roofline.csv", "trends.csv");

  private NpuReportWriter() {
  }

  public static void write(NpuReport r, OutputDirectory dir) {
    dir.write("index.html", NpuHtml.render(r));
    dir.write("npu-report.json", NpuJson.render(r));
    dir.write("units.csv", units(r));
    dir.write("cycles.csv", cycles(r));
    dir.write("energy.csv", energy(r));
    dir.write("roofline.csv", roofline(r));
    dir.write("trends.csv", trends(r));
    dir.finish();
  }

  private static String units(NpuReport r) {
    StringBuilder s = new StringBuilder("unit,block,in_top,std_cell_area_um2,cells,sram_area_um2,fmax_mhz,"
        + "critical_start,critical_end,logic_depth,power_mw\n");
    unit(s, "NPU top", "npu", true, r.npu());
    r.units().forEach(u -> unit(s, u.name(), u.block(), u.inTop(), u.ppa()));
    s.append("\narea_share,um2,basis\n");
    r.areaSplit().forEach(a -> s.append(Fmt.csv(a.name())).append(',').append(Fmt.fixed(a.um2(), 1)).append(',')
        .append(Fmt.csv(a.basis())).append('\n'));
    return s.toString();
  }

  private static void unit(StringBuilder s, String name, String block, boolean inTop, PpaResult p) {
    s.append(Fmt.csv(name)).append(',').append(block).append(',').append(inTop).append(',')
        .append(Fmt.fixed(p.synthesis().chipAreaUm2(), 1)).append(',').append(p.synthesis().cellCount()).append(',')
        .append(Fmt.fixed(p.sramAreaUm2(NodeScaling.Node.N180), 1)).append(',');
    if (!p.timed()) {
      s.append(",,,,\n"); // not timed on its own (a share of the top's synthesis): no Fmax, path or power
      return;
    }
    s.append(Fmt.sig(p.timing().fmaxMhz()))
        .append(',').append(Fmt.csv(p.timing().startpoint())).append(',').append(Fmt.csv(p.timing().endpoint()))
        .append(',').append(p.timing().logicDepth()).append(',').append(Fmt.sig(p.power().totalMw())).append('\n');
  }

  private static String cycles(NpuReport r) {
    StringBuilder s = new StringBuilder("program,kind,model_cycles,rtl_cycles,bit_exact,differing_counters\n");
    r.cycles().forEach(c -> s.append(Fmt.csv(c.program())).append(',').append(Fmt.csv(c.kind())).append(',')
        .append(c.modelCycles()).append(',').append(c.rtlCycles()).append(',').append(c.bitExact()).append(',')
        .append(Fmt.csv(String.join(" ", c.differingCounters()))).append('\n'));
    return s.toString();
  }

  private static String energy(NpuReport r) {
    StringBuilder s = new StringBuilder("phase,tokens,node_nm,unit,pj_per_token\n");
    for (NpuReport.PhaseEnergy p : r.phases()) {
      for (NodeScaling.Node n : NodeScaling.Node.values()) {
        EnergyEstimate e = p.estimates().get(n);
        e.byUnitPj().forEach((k, v) -> s.append(p.phase()).append(',').append(p.tokens()).append(',').append(n.nm)
            .append(',').append(Fmt.csv(k)).append(',').append(String.format(Locale.ROOT, "%.6g", v / p.tokens()))
            .append('\n'));
        s.append(p.phase()).append(',').append(p.tokens()).append(',').append(n.nm).append(",total,")
            .append(String.format(Locale.ROOT, "%.6g", e.totalPj() / p.tokens())).append('\n');
      }
    }
    return s.toString();
  }

  private static String roofline(NpuReport r) {
    NpuReport.Roofline rf = r.roofline();
    StringBuilder s = new StringBuilder("gemm,phase,macs,bytes,cycles,ops_per_byte,ops_per_second\n");
    rf.points().forEach(p -> s.append(Fmt.csv(p.name())).append(',').append(p.phase()).append(',').append(p.macs())
        .append(',').append(p.bytes()).append(',').append(p.cycles()).append(',')
        .append(String.format(Locale.ROOT, "%.6g", p.opsPerByte())).append(',')
        .append(String.format(Locale.ROOT, "%.6g", p.cycles() == 0 ? 0 : 2.0 * p.macs() / (p.cycles()
            / (rf.clockMhz() * 1e6)))).append('\n'));
    return s.toString();
  }

  private static String trends(NpuReport r) {
    StringBuilder s = new StringBuilder("finding,seed,ours,verdict,why,source\n");
    r.trends().forEach(t -> s.append(Fmt.csv(t.finding())).append(',').append(Fmt.csv(t.seed())).append(',')
        .append(Fmt.csv(t.ours())).append(',').append(Fmt.csv(t.verdict())).append(',').append(Fmt.csv(t.why()))
        .append(',').append(Fmt.csv(t.source())).append('\n'));
    return s.toString();
  }
}
