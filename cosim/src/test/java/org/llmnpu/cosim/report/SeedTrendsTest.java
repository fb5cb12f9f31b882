package org.llmnpu.cosim.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.isa.EngineTiming;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.reports.energy.EnergyAction;
import org.llmnpu.reports.energy.EnergyEstimate;
import org.llmnpu.reports.energy.EnergyTable;
import org.llmnpu.reports.npu.NpuReport;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.sw.lower.GemmProgram;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The seed-trend rows are computed: from the cycle model and the energy table (a changed input changes the row),
 * or from a recorded benchmark file the row names with its date and command (a changed file changes the row, a
 * missing one gives "not measured").
 */
class SeedTrendsTest {
  @TempDir
  Path tmp;

  private static final MachineParams MP = NpuConfig.tiny().machine();

  /** A recorded SwFiguresBench in BenchRecord's format, with the fused prefill of the tiny model at {@code fusedMs}. */
  private static String swFigures(String fusedMs) {
    String weights = """
        | weights | prefill L=256 ms | vs INT8 | decode @256 ms | vs INT8 | decode off-chip KiB/token |
        |---|---|---|---|---|---|
        | INT8 | 2.337 | +0 % | 0.927 | +0 % | 5925.3 |
        | INT4 | 2.337 | +0 % | 0.835 | -10 % | 3637.3 |
        """;
    String fusion = """
        | phase | stage | kernels | intermediate KiB/token | total off-chip KiB/token | estimated ms |
        |---|---|---|---|---|---|
        | prefill L=256 | unfused | 145 | 67.1 | 142.7 | 2.000 |
        | prefill L=256 | fused, tiled for 512 KiB | 47 | 8.8 | 25.4 | %s |
        """;
    return "# SwFiguresBench: recorded benchmark output, one section per benchmark method.\n"
        + "# Written by org.llmnpu.hdl.bench.BenchRecord when the benchmark runs with -Dbench; do not edit.\n\n"
        + "== fusionAndTiling\n"
        + "command: mvn -q -pl sw-stack -am test -Dbench -Dtest='SwFiguresBench#fusionAndTiling'\n"
        + "date: 2026-12-03 10:11 UTC\nwall time: 10.9 s on 2 cores\noutcome: passed\n\n"
        + "### tiny (INT4 weights)\n\n" + fusion.formatted(fusedMs) + "\n### medium (INT4 weights)\n\n"
        + fusion.formatted("1.500") + "\n#### medium: weight formats, fused graph\n\n" + weights + "\n"
        + "== realModelWeightCompression\n"
        + "command: mvn -q -pl sw-stack -am test -Dbench -Dtest='SwFiguresBench#realModelWeightCompression'\n"
        + "date: 2026-12-03 10:15 UTC\nwall time: 186.5 s on 2 cores\noutcome: passed\n\n"
        + "#### stories260K: 2048 held-out positions\n\n"
        + "| weights | bytes vs FP32 | perplexity | KL vs FP32 (nats) | top-1 agreement | logits SNR (dB) |\n"
        + "|---|---|---|---|---|---|\n"
        + "| int8 | 25.7 % | 16.343 | 0.0321 | 85.9 % | 22.16 |\n"
        + "| mxint8 | 25.8 % | 16.688 | 0.0439 | 85.6 % | 20.93 |\n"
        + "| mxfp8 | 25.8 % | 26.161 | 0.4510 | 60.2 % | 10.58 |\n"
        + "| 2:4 | 28.1 % | 5579.616 | 5.8650 | 10.0 % | -1.02 |\n"
        + "| 2:4@wanda | 28.1 % | 4945.295 | 5.6616 | 10.5 % | -0.52 |\n"
        + "| 4:8 | 29.9 % | 3917.530 | 5.4223 | 9.9 % | -0.24 |\n"
        + "| 4:8@wanda | 29.9 % | 2702.036 | 5.0904 | 11.9 % | -0.17 |\n";
  }

  private BenchResults bench(String name, String text) throws Exception {
    Path dir = Files.createDirectories(tmp.resolve(name));
    if (text != null) {
      Files.writeString(dir.resolve("SwFiguresBench.txt"), text);
    }
    return BenchResults.at(dir);
  }

  private static EnergyTable table(double mac24Pj) {
    Map<EnergyAction, EnergyTable.Entry> e = new EnumMap<>(EnergyAction.class);
    e.put(EnergyAction.MAC, new EnergyTable.Entry(EnergyAction.MAC, 2.6, "fixture"));
    e.put(EnergyAction.MAC_2_4, new EnergyTable.Entry(EnergyAction.MAC_2_4, mac24Pj, "fixture"));
    e.put(EnergyAction.MAC_IDLE, new EnergyTable.Entry(EnergyAction.MAC_IDLE, 200, "fixture"));
    e.put(EnergyAction.DRAM_BYTE, new EnergyTable.Entry(EnergyAction.DRAM_BYTE, 162.5, "fixture"));
    return new EnergyTable(e);
  }

  private static List<NpuReport.Trend> rows(int prompt, EnergyTable table, EngineTiming engine, BenchResults bench) {
    EnergyEstimate.Shape shape = new EnergyEstimate.Shape(8 * MP.lineBytes(), 256, false, 5, MP.dsp().lanes());
    SeedTrends.Golden golden = (mp, gemms, int4) -> IsaSimulator.run(mp, GemmProgram.build(mp, gemms, int4, 1).image(), 0);
    return new SeedTrends(MP, ModelConfig.stories260K(), prompt, table, shape, List.of(), golden, engine, bench).rows();
  }

  /**
   * The rows a job graph makes ahead of the energy table (modelRows: neither table nor phases) behind the sparsity
   * row give the same list as the rows made in one go, row for row.
   */
  @Test
  void theModelRowsMadeAheadBehindTheSparsityRowAreTheRowsMadeInOneGo() throws Exception {
    BenchResults bench = bench("ahead", swFigures("1.200"));
    EnergyEstimate.Shape shape = new EnergyEstimate.Shape(8 * MP.lineBytes(), 256, false, 5, MP.dsp().lanes());
    SeedTrends.Golden golden = (mp, gemms, int4) -> IsaSimulator.run(mp, GemmProgram.build(mp, gemms, int4, 1).image(), 0);
    List<NpuReport.Trend> ahead = SeedTrends.modelRows(MP, ModelConfig.stories260K(), 8, golden, EngineTiming.SYSTOLIC,
        bench);
    List<NpuReport.Trend> joined = new SeedTrends(MP, ModelConfig.stories260K(), 8, table(2.8), shape, List.of(),
        golden, EngineTiming.SYSTOLIC, bench).withSparsity(ahead);
    List<NpuReport.Trend> oneGo = rows(8, table(2.8), EngineTiming.SYSTOLIC, bench);
    assertEquals(oneGo.size() - 1, ahead.size());
    assertTrue(joined.get(0).finding().startsWith("2:4 sparsity"), joined.get(0).finding());
    assertEquals(oneGo, joined);
  }

  private static NpuReport.Trend row(List<NpuReport.Trend> rows, String findingStart) {
    return rows.stream().filter(t -> t.finding().startsWith(findingStart)).findFirst().orElseThrow();
  }

  @Test
  void recordedRowsQuoteTheBenchFileWithItsDateAndCommand() throws Exception {
    List<NpuReport.Trend> rows = rows(2, table(2.8), EngineTiming.SYSTOLIC, bench("a", swFigures("0.500")));
    NpuReport.Trend fusion = row(rows, "operator fusion");
    assertTrue(fusion.ours().contains("sw-stack latency model") && fusion.ours().contains("-75.0%"), fusion.ours());
    assertTrue(fusion.ours().contains("SwFiguresBench#fusionAndTiling") && fusion.ours().contains("2026-12-03 10:11")
        && fusion.ours().contains("mvn -q -pl sw-stack"), fusion.ours());
    NpuReport.Trend nm = row(rows, "N:M sparsity");
    assertTrue(nm.ours().contains("5.4223 vs 5.8650") && nm.ours().contains("5.0904 vs 5.6616"), nm.ours());
    assertEquals("agrees", nm.verdict());
    NpuReport.Trend mx = row(rows, "MXFP8");
    assertTrue(mx.ours().contains("26.161 vs per-channel INT8 16.343"), mx.ours());
    assertEquals("disagrees", mx.verdict());
    assertTrue(row(rows, "INT8 → INT4").ours().contains("decode -10 %"), row(rows, "INT8 → INT4").ours());
  }

  @Test
  void aChangedBenchFileChangesItsRow() throws Exception {
    NpuReport.Trend faster = row(rows(2, table(2.8), EngineTiming.SYSTOLIC, bench("a", swFigures("0.500"))),
        "operator fusion");
    NpuReport.Trend slower = row(rows(2, table(2.8), EngineTiming.SYSTOLIC, bench("b", swFigures("2.400"))),
        "operator fusion");
    assertNotEquals(faster.ours(), slower.ours());
    assertTrue(slower.ours().contains("+20.0%"), slower.ours());
  }

  @Test
  void theFusionRowIsComputedOnWholeProgramsOfThisNpuAndLlamaShapes() throws Exception {
    NpuReport.Trend fusion = row(rows(8, table(2.8), EngineTiming.SYSTOLIC, bench("empty", null)), "operator fusion");
    assertTrue(fusion.ours().contains("8-token prompt on this NPU") || fusion.ours().contains("does not run"),
        fusion.ours());
    for (String m : SeedTrends.FUSION_MODELS) {
      assertTrue(fusion.ours().contains(m + " "), fusion.ours());
    }
    assertTrue(fusion.source().contains("npu estimate --preset edge-64"), fusion.source());
    assertNotEquals("not measured", fusion.verdict());
    // the figure is the cycle model's: the edge-64 prefill of LLaMA-3.1-8B, full over none
    double gain = ProgramTrends.fusionGainsOnEdge(List.of("llama-3.1-8b")).get("llama-3.1-8b");
    assertTrue(fusion.ours().contains(String.format(java.util.Locale.ROOT, "llama-3.1-8b %+.1f %%", 100 * gain)),
        fusion.ours());
  }

  @Test
  void theCpuGpuRowComesFromTheSocModel() {
    NpuReport.Trend t = ProgramTrends.energyVsCpuGpu();
    assertTrue(t.ours().contains("decode J/token: CPU") && t.ours().contains("TPOT vs CPU"), t.ours());
    assertTrue(List.of("agrees", "partly", "disagrees").contains(t.verdict()), t.verdict());
    assertTrue(t.source().contains("--preset lunar-lake"), t.source());
  }

  @Test
  void aMissingBenchFileGivesNotMeasured() throws Exception {
    List<NpuReport.Trend> rows = rows(2, table(2.8), EngineTiming.SYSTOLIC, bench("empty", null));
    for (String finding : new String[] {"N:M sparsity", "MXFP8"}) {
      NpuReport.Trend t = row(rows, finding);
      assertEquals("not measured", t.verdict(), finding);
      assertEquals("", t.ours(), finding);
      assertTrue(t.why().contains("SwFiguresBench.txt") && t.why().contains("-Dbench"), t.why());
    }
    assertTrue(row(rows, "INT8 → INT4").ours().contains("sw-stack latency model: not measured"));
    assertTrue(row(rows, "operator fusion").ours().contains("sw-stack latency model: not measured"));
    assertEquals("not measured", row(rows(2, table(2.8), EngineTiming.SYSTOLIC, BenchResults.at(null)),
        "MXFP8").verdict());
  }

  @Test
  void computedRowsFollowTheirInputs() throws Exception {
    BenchResults b = bench("a", swFigures("0.500"));
    List<NpuReport.Trend> base = rows(2, table(2.8), EngineTiming.SYSTOLIC, b);
    List<NpuReport.Trend> longer = rows(4, table(2.8), EngineTiming.SYSTOLIC, b);
    for (String finding : new String[] {"2:4 sparsity", "PiM", "INT8 → INT4"}) {
      assertNotEquals(row(base, finding).ours(), row(longer, finding).ours(), finding + ": the prompt's GEMM shapes");
    }
    assertNotEquals(row(base, "2:4 sparsity").ours(), row(rows(2, table(4.0), EngineTiming.SYSTOLIC, b), "2:4 sparsity")
        .ours(), "the energy table");
    assertNotEquals(row(base, "PiM").ours(), row(rows(2, table(2.8), EngineTiming.pim(1), b), "PiM").ours(),
        "the PiM engine compared");
    assertTrue(row(base, "PiM").ours().contains("4 input bits"), row(base, "PiM").ours());
  }
}
