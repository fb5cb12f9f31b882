package org.llmnpu.reports.html;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.reports.OutputDirectory;
import org.llmnpu.reports.energy.EnergyAction;
import org.llmnpu.reports.energy.EnergyEstimate;
import org.llmnpu.reports.energy.EnergyTable;
import org.llmnpu.reports.npu.NpuReport;
import org.llmnpu.reports.npu.SocSection;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.reports.ppa.PowerResult;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.reports.ppa.SynthesisResult;
import org.llmnpu.reports.ppa.TimingResult;

/**
 * The whole-NPU report's writer on a report assembled in the test (no tools): every file, the
 * JSON fields scripts read, energy per token equal to counters × table, no network references,
 * markup in names escaped, and byte-identical output for the same report. The command's test in
 * {@code cli} runs the real pipeline and renders the page in Chromium.
 */
class NpuReportWriterTest {
  @TempDir
  Path tmp;

  private static PpaResult ppa(String design, double area, double fmax) {
    SynthesisResult s = new SynthesisResult(area, 100, new TreeMap<>(Map.of("DFFPOSX1", 10)),
        new TreeMap<>(Map.of("DFFPOSX1", area)), List.of(), List.of(), "", "");
    TimingResult t = new TimingResult(5.75, "clk", "register a<b>", "register c", 12, 5, 5.75 - 1000 / fmax,
        1000 / fmax, fmax);
    PowerResult p = new PowerResult(0.1, PowerResult.INPUTS, new TreeMap<>(), 1, 1, 0.001, 2.001);
    return new PpaResult(design, Map.of(), s, t, p);
  }

  static NpuReport report() {
    Map<EnergyAction, EnergyTable.Entry> e = new EnumMap<>(EnergyAction.class);
    e.put(EnergyAction.MAC, new EnergyTable.Entry(EnergyAction.MAC, 2.5, "test"));
    e.put(EnergyAction.MAC_IDLE, new EnergyTable.Entry(EnergyAction.MAC_IDLE, 100, "test"));
    e.put(EnergyAction.PSUM_WRITEBACK, new EnergyTable.Entry(EnergyAction.PSUM_WRITEBACK, 40, "test"));
    e.put(EnergyAction.DRAM_BYTE, new EnergyTable.Entry(EnergyAction.DRAM_BYTE, 160, "test"));
    EnergyTable table = new EnergyTable(e);
    EnergyEstimate.Shape shape = new EnergyEstimate.Shape(128, 4096, false, 10);
    List<NpuReport.PhaseEnergy> phases = new java.util.ArrayList<>();
    for (String phase : List.of("prefill", "decode")) {
      Map<String, Long> c = new LinkedHashMap<>();
      c.put("cycles", phase.equals("prefill") ? 100_000L : 20_000L);
      c.put("macs", phase.equals("prefill") ? 8_000_000L : 250_000L);
      c.put("dmaLoadBytes", 300_000L);
      c.put("dmaStoreBytes", 20_000L);
      c.put("spadReads", 30_000L);
      c.put("spadWrites", 30_000L);
      Map<NodeScaling.Node, EnergyEstimate> est = new EnumMap<>(NodeScaling.Node.class);
      for (NodeScaling.Node n : NodeScaling.Node.values()) {
        est.put(n, EnergyEstimate.of(table, n, c, shape));
      }
      phases.add(new NpuReport.PhaseEnergy(phase, phase.equals("prefill") ? 32 : 1, "test <proxy>", true, c, est));
    }
    PpaResult npu = ppa("Npu_test", 9e6, 100);
    List<NpuReport.Unit> units = List.of(new NpuReport.Unit("GEMM engine", "gemm-engine", Map.of("rows", "16"), List.of("gemm"),
        ppa("GemmEngine_test", 8e6, 174)));
    List<NpuReport.AreaSlice> split = List.of(new NpuReport.AreaSlice("GEMM engine logic", 8e6, "test"),
        new NpuReport.AreaSlice("controller & DMA", 1e6, "test"));
    List<NpuReport.CyclePoint> cycles = List.of(new NpuReport.CyclePoint("random 1", "random", 1000, 1000, true,
        List.of()), new NpuReport.CyclePoint("prefill", "decoder phase", 100_000, 100_000, true, List.of("dspCycles")));
    NpuReport.Roofline roof = new NpuReport.Roofline(100, 256, 16, List.of(
        new NpuReport.RoofPoint("prefill w1 32x64x172", "prefill", 32L * 64 * 172, 20_000, 3000),
        new NpuReport.RoofPoint("decode w1 1x64x172", "decode", 64L * 172, 12_000, 1000)));
    List<NpuReport.Trend> trends = List.of(new NpuReport.Trend("f", "s", "o", "agrees", "w", "src"),
        new NpuReport.Trend("g", "s", "", "not measured", "why", "—"));
    return new NpuReport("NPU report: test", Map.of("rows", "16"), 5.75, npu, units, split, cycles, table,
        "test table", phases, roof, trends, List.of("a note"));
  }

  private Path write(String name) {
    Path dir = tmp.resolve(name);
    NpuReportWriter.write(report(), OutputDirectory.open("npu-report", "-o", dir.toString(), false));
    return dir;
  }

  @Test
  void writesEveryFileWithTheFieldsScriptsReadAndIdenticalBytesEachTime() throws Exception {
    Path a = write("a");
    Path b = write("b");
    for (String f : NpuReportWriter.FILES) {
      assertTrue(Files.isRegularFile(a.resolve(f)), f);
      assertArrayEquals(Files.readAllBytes(a.resolve(f)), Files.readAllBytes(b.resolve(f)), f + " is deterministic");
    }
    JsonNode j = new ObjectMapper().readTree(a.resolve("npu-report.json").toFile());
    NpuReport r = report();
    for (NpuReport.PhaseEnergy p : r.phases()) {
      double want = p.estimates().get(NodeScaling.Node.N180).totalPj() * 1e-12 / p.tokens();
      assertEquals(want, j.path("energyPerTokenJ").path(p.phase()).asDouble(), want * 1e-12, p.phase());
    }
    assertEquals("180 nm", j.path("energyPerTokenNode").asText());
    assertEquals(2, j.path("cycleValidation").path("programs").asInt());
    assertTrue(j.path("cycleValidation").path("allCyclesEqual").asBoolean());
    assertEquals("dspCycles", j.path("cycleValidation").path("runs").get(1).path("differingCounters").get(0).asText());
    assertEquals(2.0 * 256 * 100e6, j.path("roofline").path("peakOpsPerSecond").asDouble(), 1);
    assertEquals("not measured", j.path("seedTrends").get(1).path("verdict").asText());
    assertTrue(j.path("energy").path("table").path("actions").size() >= 4);

    String html = Files.readString(a.resolve("index.html"));
    assertFalse(html.replace("http://www.w3.org/2000/svg", "").contains("http"), "no network references");
    assertFalse(html.contains("<script"));
    assertTrue(html.contains("register a&lt;b&gt;") && !html.contains("register a<b>"), "names are escaped");
    for (String section : List.of("Configuration", "PPA per unit", "Cycle model against the RTL", "Energy per token",
        "Roofline", "Seed trends", "GEMM-only proxy")) {
      assertTrue(html.contains(section), section);
    }
    assertEquals(5, html.split("<svg").length - 1, "pie, Fmax bars, scatter, stacked bars, roofline");
  }

  @Test
  void rendersTheSocSectionWhenGatheredAndNothingWhenNot() throws Exception {
    NpuReport r = report();
    SocSection soc = new SocSection("intro <text>", List.of(
        new SocSection.Chart("prefill time", "ms", List.of(
            new SocSection.Bar("cpu", 1400), new SocSection.Bar("npu", 2158))),
        new SocSection.Chart("plan", "%", List.of(
            new SocSection.Bar("decode wq", 28)))),
        List.of(new SocSection.Finding("seed 001", "prefill-cpu-vs-npu", "1.54x", "1.27-1.62x",
            true, "vector work"), new SocSection.Finding("seed 001", "per-stage-choice", "GPU",
            "CPU, NPU", false, "no GPU in the paper")));
    NpuReport withSoc = new NpuReport(r.title(), r.config(), r.clockNs(), r.npu(), r.units(), r.areaSplit(),
        r.cycles(), r.energyTable(), r.energyTableSource(), r.phases(), r.roofline(), r.trends(), r.notes(), soc);
    String html = NpuHtml.render(withSoc);
    assertEquals(7, html.split("<svg").length - 1, "the report's five and the section's two");
    assertTrue(html.contains("The NPU inside a heterogeneous SoC") && html.contains("intro &lt;text&gt;"));
    assertTrue(html.contains("<tr class=\"agrees\"><td class=\"l\">prefill-cpu-vs-npu</td>")
        && html.contains("<tr class=\"disagrees\"><td class=\"l\">per-stage-choice</td>"));
    assertFalse(NpuHtml.render(r).contains("heterogeneous SoC"));
    JsonNode j = new ObjectMapper().readTree(NpuJson.render(withSoc));
    assertEquals(2, j.path("soc").path("charts").size());
    assertEquals(2158, j.path("soc").path("charts").get(0).path("bars").get(1).path("value").asDouble());
    assertFalse(j.path("soc").path("findings").get(1).path("agrees").asBoolean());
    assertTrue(new ObjectMapper().readTree(NpuJson.render(r)).path("soc").isMissingNode());
  }

  @Test
  void trendFiguresAreEmbeddedUnderTheSeedTrends() {
    NpuReport r = report();
    String stairs = StaircaseSvg.svg("stairs", List.of(new StaircaseSvg.Panel("npu", 2, List.of(10L, 11L, 20L),
        List.of(5L, 5L, 10L))));
    NpuReport withFigure = new NpuReport(r.title(), r.config(), r.clockNs(), r.npu(), r.units(), r.areaSplit(),
        r.cycles(), r.energyTable(), r.energyTableSource(), r.phases(), r.roofline(), r.trends(), r.notes(), null,
        List.of(new NpuReport.Figure("the staircase <plot>", "Bench#staircase", stairs)));
    String html = NpuHtml.render(withFigure);
    assertEquals(NpuHtml.render(r).split("<svg").length + 2, html.split("<svg").length, "the plot's two svg tags");
    assertTrue(html.indexOf("the staircase &lt;plot&gt;") > html.indexOf("Seed trends") && html.contains(stairs));
  }
}
