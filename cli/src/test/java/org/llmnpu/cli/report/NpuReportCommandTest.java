package org.llmnpu.cli.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.reports.HeadlessChromium;
import org.llmnpu.reports.RequiredTools;
import org.llmnpu.reports.energy.EnergyAction;
import org.llmnpu.reports.energy.EnergyTable;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.cosim.report.NpuReportPipeline;
import picocli.CommandLine;

/**
 * {@code npu report npu} end to end on the tests' tiny NPU ({@link NpuConfig#tiny()}: 4×4 array, 2 KiB
 * scratchpad, a 1-lane DSP, 1 MiB of memory, so the decoder runs as its GEMM-only proxy): real PPA of the
 * top and its units, the random and decoder-proxy programs co-simulated in Verilator, the report
 * rendered in headless Chromium, and the JSON's fields. The energy table comes from a file (the
 * calibration has its own tests), which also checks {@code --energy-table}. PPA results go to the tests'
 * shared cache ({@link PpaCommandTest#sharedPpaCache}), where reports' tests have put the NPU's synthesis (same
 * Verilog, same 5 ns clock) in a full build.
 */
class NpuReportCommandTest {
  @TempDir
  Path tmp;

  /**
   * {@code -p} options for {@link NpuConfig#tiny()} and {@code --clock-ns 5}: the NPU and clock of reports' PPA and
   * calibration tests, whose synthesis this test then finds in the shared test cache.
   */
  private static final String[] TINY = java.util.stream.Stream.concat(
      NpuReportPipeline.generatorParams(NpuConfig.tiny()).entrySet().stream()
          .flatMap(e -> java.util.stream.Stream.of("-p", e.getKey() + "=" + e.getValue())),
      java.util.stream.Stream.of("--clock-ns", "5")).toArray(String[]::new);

  private int run(StringWriter out, StringWriter err, String... args) {
    return new CommandLine(new ReportCommand()).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
        .execute(args);
  }

  @Test
  void writesTheWholeNpuReportAndItRendersInChromium() throws Exception {
    RequiredTools.require("verilator", "yosys", "sta", "chromium");
    Map<EnergyAction, EnergyTable.Entry> e = new EnumMap<>(EnergyAction.class);
    e.put(EnergyAction.MAC, new EnergyTable.Entry(EnergyAction.MAC, 2.6, "fixture"));
    e.put(EnergyAction.MAC_2_4, new EnergyTable.Entry(EnergyAction.MAC_2_4, 2.8, "fixture"));
    e.put(EnergyAction.MAC_IDLE, new EnergyTable.Entry(EnergyAction.MAC_IDLE, 200, "fixture"));
    e.put(EnergyAction.PSUM_WRITEBACK, new EnergyTable.Entry(EnergyAction.PSUM_WRITEBACK, 40, "fixture"));
    e.put(EnergyAction.DRAM_BYTE, new EnergyTable.Entry(EnergyAction.DRAM_BYTE, 162.5, "fixture"));
    e.put(EnergyAction.IDLE_FLIP_FLOP, new EnergyTable.Entry(EnergyAction.IDLE_FLIP_FLOP, 0.22, "fixture"));
    Path table = tmp.resolve("energy.json");
    Files.writeString(table, new EnergyTable(e).json());
    Path out = tmp.resolve("report");
    String previous = System.getProperty("llmnpu.ppa.cache");
    System.setProperty("llmnpu.ppa.cache", PpaCommandTest.sharedPpaCache().toString());
    StringWriter so = new StringWriter();
    StringWriter se = new StringWriter();
    int code;
    try {
      String[] args = new String[TINY.length + 10];
      System.arraycopy(TINY, 0, args, 1, TINY.length);
      args[0] = "npu";
      String[] rest = {"--quick", "--prompt", "2", "--programs", "1", "--energy-table", table.toString(), "-o",
          out.toString()};
      System.arraycopy(rest, 0, args, TINY.length + 1, rest.length);
      code = run(so, se, args);
    } finally {
      if (previous == null) {
        System.clearProperty("llmnpu.ppa.cache");
      } else {
        System.setProperty("llmnpu.ppa.cache", previous);
      }
    }
    assertEquals(0, code, so + "\n" + se);
    for (String f : new String[] {"index.html", "npu-report.json", "units.csv", "cycles.csv", "energy.csv",
        "roofline.csv", "trends.csv"}) {
      assertTrue(Files.isRegularFile(out.resolve(f)), f);
    }

    JsonNode j = new ObjectMapper().readTree(out.resolve("npu-report.json").toFile());
    for (String phase : new String[] {"prefill", "decode"}) {
      double jt = j.path("energyPerTokenJ").path(phase).asDouble();
      assertTrue(jt > 0 && jt < 1, phase + " J/token " + jt);
    }
    // a decode token streams every weight once; a prefill token shares them with the prompt
    assertTrue(j.path("energyPerTokenJ").path("decode").asDouble() > j.path("energyPerTokenJ").path("prefill").asDouble());
    assertTrue(j.path("energy").path("proxy").asBoolean(), "the GEMM-only proxy is labelled");
    assertTrue(j.path("npu").path("fmaxMhz").asDouble() > 10);
    assertTrue(j.path("units").size() >= 7, "every unit of the top (its share of the top, or synthesized on its own): " + j.path("units"));
    java.util.List<String> engines = new java.util.ArrayList<>();
    j.path("units").forEach(u -> {
      if (u.path("name").asText().equals("GEMM engine")) {
        engines.add(u.path("block").asText());
      }
    });
    assertEquals(1, engines.size(), "one GEMM engine row");
    assertTrue(engines.get(0).startsWith("GemmEngine"), engines.toString());
    double split = 0;
    boolean glue = false;
    for (JsonNode a : j.path("areaSplit")) {
      split += a.path("um2").asDouble();
      glue |= a.path("name").asText().startsWith("glue");
    }
    assertTrue(glue, "the top's glue is its own row");
    double top = j.path("npu").path("stdCellAreaUm2").asDouble() + j.path("npu").path("sramAreaUm2").asDouble();
    assertEquals(top, split, 1e-6 * top, "the area split adds up to the top");
    assertEquals(3, j.path("cycleValidation").path("programs").asInt(), "1 random + prefill + decode");
    assertTrue(j.path("cycleValidation").path("allCyclesEqual").asBoolean());
    assertTrue(j.path("cycleValidation").path("allBitExact").asBoolean());
    assertTrue(j.path("roofline").path("peakOpsPerSecond").asDouble() > 0);
    assertTrue(j.path("roofline").path("gemms").size() >= 10);
    assertTrue(j.path("seedTrends").size() >= 5);
    assertTrue(j.path("soc").path("findings").size() >= 13 && j.path("soc").path("charts").size() == 6,
        "the SoC section: seed 001 and 002 findings, six charts");
    Set<String> verdicts = new HashSet<>();
    j.path("seedTrends").forEach(t -> verdicts.add(t.path("verdict").asText()));
    assertTrue(Set.of("agrees", "disagrees", "partly", "not measured").containsAll(verdicts), verdicts.toString());
    assertEquals("read from " + table, j.path("energy").path("tableSource").asText());

    String html = Files.readString(out.resolve("index.html"));
    assertFalse(html.contains("http://") && html.replace("http://www.w3.org/2000/svg", "").contains("http://"),
        "nothing is fetched from the network");
    assertFalse(html.contains("<script"));
    String dom = HeadlessChromium.dumpDom(out.resolve("index.html"));
    assertTrue(dom.contains("Seed trends") && dom.contains("Roofline") && dom.contains("<svg")
        && dom.contains("The NPU inside a heterogeneous SoC"), "sections rendered");
    Path png = tmp.resolve("page.png");
    HeadlessChromium.screenshot(out.resolve("index.html"), png);
    BufferedImage img = ImageIO.read(png.toFile());
    assertEquals(1200, img.getWidth());
    assertEquals(900, img.getHeight());
    int inked = 0;
    Set<Integer> colors = new HashSet<>();
    for (int y = 0; y < img.getHeight(); y += 2) {
      for (int x = 0; x < img.getWidth(); x += 2) {
        int rgb = img.getRGB(x, y) & 0xFFFFFF;
        colors.add(rgb);
        inked += rgb != 0xFFFFFF ? 1 : 0;
      }
    }
    int samples = (img.getWidth() / 2) * (img.getHeight() / 2);
    assertTrue(inked > samples / 50, "page is not blank: " + inked + " of " + samples + " samples inked");
    assertTrue(colors.size() > 20, "text, tables and chart colours: " + colors.size());
  }

  @Test
  void badOptionsExitTwoBeforeAnythingRuns() {
    String o = tmp.resolve("bad").toString();
    for (String[] args : new String[][] {
        {"npu", "-p", "rows=5", "-o", o},
        {"npu", "-p", "bogus=1", "-o", o},
        {"npu", "--prompt", "0", "-o", o},
        {"npu", "--programs", "99", "-o", o},
        {"npu", "--clock-ns", "0", "-o", o},
        {"npu", "--energy-table", tmp.resolve("missing.json").toString(), "-o", o},
        {"npu", "--config", tmp.resolve("missing.yaml").toString(), "-o", o}}) {
      StringWriter err = new StringWriter();
      assertEquals(2, run(new StringWriter(), err, args), String.join(" ", args) + ": " + err);
      assertEquals(1, err.toString().strip().lines().count(), err.toString());
      assertFalse(Files.exists(tmp.resolve("bad")));
    }
  }

  @Test
  void everyGeneratorParameterReachesTheReportedNpu() throws Exception {
    org.llmnpu.rtl.npu.NpuConfig c = NpuReportCommand.config(null, java.util.List.of("rows=8", "engine=pim-k4",
        "ppu=false", "weightRowsPerCycle=2", "dspLanes=4", "dspRows=64", "mxLoad=true", "commandQueueDepth=2"), false);
    assertEquals("pim-k4", c.engine());
    assertEquals(2, c.commandQueueDepth());
    assertTrue(c.mxLoad());
    assertFalse(c.ppu());
    assertEquals(2, c.weightRowsPerCycle());
    assertEquals(4, c.dspLanes());
    assertEquals(64, c.dspRows());
    assertEquals("2:4", NpuReportCommand.config(null, java.util.List.of("sparsity=2:4"), false).sparsity());
    assertEquals(2, NpuReportCommand.config(null, java.util.List.of("dspStages=2"), false).dspStages());
    Path yaml = tmp.resolve("npu.yaml");
    Files.writeString(yaml, "rows: 8\nengine: pim\nppu: false\nmxLoad: true\ndspStages: 3\n");
    org.llmnpu.rtl.npu.NpuConfig f = NpuReportCommand.config(yaml, java.util.List.of("maxK=64"), false);
    assertEquals("pim", f.engine());
    assertFalse(f.ppu());
    assertTrue(f.mxLoad());
    assertEquals(64, f.maxK());
    assertEquals(3, f.dspStages());
    assertEquals(f, NpuReportCommand.config(null, org.llmnpu.cosim.report.NpuReportPipeline.generatorParams(f).entrySet()
        .stream().map(e -> e.getKey() + "=" + e.getValue()).toList(), false).withMemory(f.memLatency(),
        f.memBytesPerCycle()));
  }
}
