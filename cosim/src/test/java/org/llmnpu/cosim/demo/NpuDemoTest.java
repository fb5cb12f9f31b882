package org.llmnpu.cosim.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.cosim.report.NpuReportPipeline;
import org.llmnpu.hdl.tools.ExternalTool;
import org.llmnpu.reports.energy.EnergyAction;
import org.llmnpu.reports.energy.EnergyTable;
import org.llmnpu.reports.ppa.ContentCache;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.rtl.TargetClock;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * The demo end to end on the tests' tiny NPU at 5 ns (whose syntheses reports' tests leave in the shared PPA cache),
 * with an energy table from a file (the calibration has its own tests): Verilog written and lint clean, the report
 * written, both decoder phases bit-exact with the model's cycles, and the progress lines stamped and in order.
 */
class NpuDemoTest {
  @TempDir
  Path tmp;

  @Test
  void theDemoGeneratesLintsCosimulatesAndWritesTheReport() throws Exception {
    for (String tool : new String[] {"verilator", "yosys", "sta"}) {
      assumeTrue(ExternalTool.find(tool).isPresent() || "true".equalsIgnoreCase(System.getenv("CI")),
          tool + " not installed");
    }
    Map<EnergyAction, EnergyTable.Entry> e = new EnumMap<>(EnergyAction.class);
    e.put(EnergyAction.MAC, new EnergyTable.Entry(EnergyAction.MAC, 2.6, "fixture"));
    e.put(EnergyAction.MAC_2_4, new EnergyTable.Entry(EnergyAction.MAC_2_4, 2.8, "fixture"));
    e.put(EnergyAction.PSUM_WRITEBACK, new EnergyTable.Entry(EnergyAction.PSUM_WRITEBACK, 40, "fixture"));
    e.put(EnergyAction.MAC_IDLE, new EnergyTable.Entry(EnergyAction.MAC_IDLE, 200, "fixture"));
    e.put(EnergyAction.DRAM_BYTE, new EnergyTable.Entry(EnergyAction.DRAM_BYTE, 162.5, "fixture"));
    e.put(EnergyAction.IDLE_FLIP_FLOP, new EnergyTable.Entry(EnergyAction.IDLE_FLIP_FLOP, 0.22, "fixture"));
    Path table = tmp.resolve("energy.json");
    Files.writeString(table, new EnergyTable(e).json());
    String root = System.getProperty("llmnpu.repoRoot");
    Path cache = (root == null || root.isBlank() ? Path.of("") : Path.of(root)).toAbsolutePath()
        .resolve(Path.of("target", "ppa-test-cache"));
    NpuReportPipeline.Options o = new NpuReportPipeline.Options(NpuConfig.tiny(),
        PpaOptions.defaults().withCache(new ContentCache(cache)), 2, 1, table, 1);
    List<String> lines = new ArrayList<>();
    NpuDemo.Result r = new NpuDemo(o, tmp.resolve("demo"), lines::add).run();

    assertTrue(r.passed(), String.join("\n", lines));
    assertEquals(List.of(), r.lint());
    assertTrue(Files.isRegularFile(r.verilogDir().resolve(r.design().top() + ".v")));
    assertTrue(Files.isRegularFile(r.reportDir().resolve("index.html")));
    assertTrue(Files.isRegularFile(r.reportDir().resolve("npu-report.json")));
    assertTrue(Files.readString(r.reportDir().resolve("index.html")).contains("The NPU inside a heterogeneous SoC"),
        "the SoC section");
    assertTrue(new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.reportDir().resolve("npu-report.json")
        .toFile()).path("soc").path("findings").size() >= 13, "seed 001 and 002 findings");
    assertTrue(lines.get(0).startsWith("npu demo: the NPU (4x4 MAC array"), lines.get(0));
    List<String> steps = lines.stream().filter(l -> l.matches("\\[\\s*[0-9]+\\.[0-9] s\\] .*"))
        .map(l -> l.replaceFirst("^\\[\\s*[0-9.]+ s\\] ", "")).toList();
    assertTrue(steps.get(0).startsWith("generate: npu {rows=4") && steps.get(1).startsWith("lint:")
        && steps.get(steps.size() - 1).equals("done"), steps.toString());
    assertEquals(2, r.phaseLines().size());
    for (String p : r.phaseLines()) {
      assertTrue(p.contains("bit-exact;") && p.contains("= model yes;") && p.endsWith("uJ/token at 180 nm"), p);
    }
    assertEquals(TargetClock.PERIOD_NS, NpuDemo.defaults().ppa().clockNs());
    assertEquals(NpuConfig.defaults(), NpuDemo.defaults().config());
  }
}
