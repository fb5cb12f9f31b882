package org.llmnpu.flow.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.cosim.demo.NpuDemo;
import org.llmnpu.cosim.report.NpuReportPipeline;
import org.llmnpu.flow.graph.JobOutcome;
import org.llmnpu.hdl.tools.ExternalTool;
import org.llmnpu.reports.energy.EnergyAction;
import org.llmnpu.reports.energy.EnergyTable;
import org.llmnpu.reports.npu.NpuReport;
import org.llmnpu.reports.ppa.ContentCache;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.rtl.TargetClock;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * The demo as a job graph on the tests' tiny NPU at 5 ns (the syntheses shared with the other tests' PPA cache), with
 * an energy table from a file (the calibration has its own tests): every job ends well, the Verilog is lint clean,
 * both decoder phases are bit-exact with the model's cycles, the report is written; a second run reads the cached
 * jobs back (lint, co-simulation) and gives the same phases. (It replaces cosim's NpuDemoTest of the sequential demo.)
 */
class NpuDemoFlowTest {
  @TempDir
  Path tmp;

  @Test
  void theDemoRunsAsJobsAndASecondRunReusesTheCachedOnes() throws Exception {
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
    Path ppaCache = (root == null || root.isBlank() ? Path.of("") : Path.of(root)).toAbsolutePath()
        .resolve(Path.of("target", "ppa-test-cache"));
    // the jobs' own entries in a fresh cache; the syntheses in the shared one
    NpuReportPipeline.Options o = new NpuReportPipeline.Options(NpuConfig.tiny(),
        PpaOptions.defaults().withCache(new ContentCache(ppaCache)), 2, 1, table, 1);
    List<String> lines = Collections.synchronizedList(new ArrayList<>());
    NpuDemoFlow.Outcome first = NpuDemoFlow.run(o, tmp.resolve("demo"), 2, Duration.ofSeconds(5), lines::add);

    assertTrue(first.passed(), String.join("\n", lines) + "\n" + first.jobLines());
    assertEquals(List.of(), first.result().lint());
    assertTrue(Files.isRegularFile(first.result().verilogDir().resolve(first.result().design().top() + ".v")));
    assertTrue(Files.isRegularFile(first.result().reportDir().resolve("index.html")));
    assertTrue(Files.isRegularFile(first.result().reportDir().resolve("npu-report.json")));
    assertTrue(Files.readString(first.result().reportDir().resolve("index.html"))
        .contains("The NPU inside a heterogeneous SoC"), "the SoC section");
    assertTrue(lines.get(0).startsWith("npu demo: the NPU (4x4 MAC array"), lines.get(0));
    assertTrue(lines.stream().allMatch(l -> l.equals(lines.get(0)) || l.matches("\\[\\s*[0-9]+\\.[0-9] s\\] .*")),
        "every line after the first stamped: " + lines);
    assertEquals(2, first.result().phaseLines().size());
    for (String p : first.result().phaseLines()) {
      assertTrue(p.contains("bit-exact;") && p.contains("= model yes;"), p);
    }
    List<String> ids = first.run().outcomes().stream().map(JobOutcome::id).toList();
    assertTrue(ids.containsAll(List.of("generate", "lint", "synth:npu", "energy", "cosim", "report", "write")), ids.toString());
    assertTrue(ids.stream().filter(i -> i.startsWith("synth:") || i.startsWith("area:")).count() >= 8,
        "the top and every unit: " + ids);
    // the units the top keeps as modules (GEMM engine, PPM, Vector DSP) are shares of its synthesis, not run again
    List<String> shares = ids.stream().filter(i -> i.startsWith("area:")).toList();
    assertTrue(shares.stream().anyMatch(i -> i.startsWith("area:GemmEngine")) && shares.size() >= 3, ids.toString());
    assertTrue(ids.stream().noneMatch(i -> i.startsWith("synth:GemmEngine")), ids.toString());
    NpuReport report = first.result().report().report();
    for (NpuReport.Unit u : report.units()) {
      assertEquals(!ids.contains("area:" + u.block()), u.ppa().timed(), u.block());
    }
    String split = report.notes().stream().filter(n -> n.startsWith("Area split:")).findFirst().orElseThrow();
    assertTrue(split.contains("share of the top's own hierarchical synthesis"), split);
    assertTrue(ids.indexOf("report") > ids.indexOf("cosim") && ids.indexOf("write") > ids.indexOf("report"));
    // the seed trends of the models and the SoC section are jobs of their own, made before the report
    assertTrue(ids.indexOf("report") > ids.indexOf("trends") && ids.indexOf("report") > ids.indexOf("soc"), ids.toString());
    assertTrue(indexOf(lines, "report: done in") > indexOf(lines, "trends: done in")
        && indexOf(lines, "report: done in") > indexOf(lines, "soc: done in"), String.join("\n", lines));
    assertTrue(report.trends().size() > 1 && report.trends().get(0).finding().startsWith("2:4 sparsity"),
        "the sparsity row, then the models' rows");
    // the calibration in parts: each block's runs and the NPU's simulations from the start, each whole-NPU power run
    // once the top is synthesized and the simulations are done, the table after all of them (no worker waits)
    List<String> blocks = List.of("energy:gemm-dense", "energy:gemm-2-4", "energy:dsp", "energy:ppm");
    List<String> powers = List.of("energy:npu-idle", "energy:npu-fences", "energy:npu-loads-stores",
        "energy:npu-gemm-x8");
    assertTrue(ids.containsAll(blocks) && ids.containsAll(powers) && ids.contains("energy:npu-sim")
        && !ids.contains("energy:pim"), ids.toString());
    int energyEnd = indexOf(lines, "energy: done in");
    for (String power : powers) {
      int started = indexOf(lines, power + ": started");
      assertTrue(started > indexOf(lines, "synth:npu: done in") && started > indexOf(lines, "energy:npu-sim: done in")
          && energyEnd > indexOf(lines, power + ": done in"), power + "\n" + String.join("\n", lines));
    }
    for (String block : blocks) {
      assertTrue(energyEnd > indexOf(lines, block + ": done in"), block + "\n" + String.join("\n", lines));
    }
    // every job that ran has its CPU on its line
    assertTrue(first.jobLines().stream().filter(l -> l.contains(" ran ")).allMatch(l -> l.contains(" CPU ")),
        String.join("\n", first.jobLines()));

    lines.clear();
    NpuDemoFlow.Outcome second = NpuDemoFlow.run(o, tmp.resolve("demo2"), 2, Duration.ofSeconds(5), lines::add);
    assertTrue(second.passed(), String.join("\n", lines));
    for (String cached : List.of("lint", "cosim")) {
      assertEquals(JobOutcome.Status.CACHED, second.run().outcomes().get(ids.indexOf(cached)).status(), cached);
    }
    assertEquals(first.result().phaseLines(), second.result().phaseLines());
    assertEquals(TargetClock.PERIOD_NS, NpuDemo.defaults().ppa().clockNs());
    assertEquals(NpuConfig.defaults(), NpuDemo.defaults().config());
  }

  private static int indexOf(List<String> lines, String text) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains("] " + text)) {
        return i;
      }
    }
    throw new AssertionError("no line with '" + text + "' in\n" + String.join("\n", lines));
  }
}
