package org.llmnpu.cosim.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.reports.npu.NpuReport;

/** The seed-004 rows read from a recorded DllmBench: figures and verdicts from its tables, "not measured" without. */
class DllmTrendsTest {
  @TempDir
  Path tmp;

  private static final String HEAD = "# DllmBench: recorded benchmark output, one section per benchmark method.\n\n";

  private static String section(String method, String body) {
    return "== " + method + "\ncommand: mvn -q -pl soc -am test -Dbench -Dtest='DllmBench#" + method + "'\n"
        + "date: 2026-12-05 01:03 UTC\nwall time: 7.0 s on 2 cores\noutcome: passed\n\n" + body + "\n";
  }

  private static final String MECHANISMS = """
      | configuration | switched off | passes | NPU rows | stories260K ms | vs all | llama-3-8b ms | vs all (llama-3-8b) |
      |---|---|---|---|---|---|---|---|
      | all mechanisms | - | 32 | 1483 | 5.773 | 1.00x | 9884.3 | 1.00x |
      | no speculative blocks | multi-block speculative decoding | 32 | 794 | 4.024 | 0.70x | 8726.7 | 0.88x |
      | revision on the NPU | dual-path progressive revision (CPU path) | 32 | 1581 | 5.989 | 1.04x | 10019.5 | 1.01x |
      | naive memory runtime | swap-optimized memory runtime | 32 | 1483 | 7.511 | 1.30x | 10217.5 | 1.03x |

      #### baselines

      | model shape | diffusion ms | autoregressive ms | vs autoregressive | diffusion on the CPU ms | vs CPU-only | autoregressive on the CPU ms |
      |---|---|---|---|---|---|---|
      | stories260K | 5.773 | 9.388 | 1.63x | 1.083 | 0.19x | 2.192 |
      | llama-3-8b | 9884.3 | 30801.9 | 3.12x | 16718.3 | 1.69x | - |

      #### weak vector unit

      | NPU | array MACs a cycle | DSP operations a cycle | DSP share of a tile-row pass |
      |---|---|---|---|
      | sd8gen3's | 4096 | 32 | 30.8 % |
      """;

  private static String stairs(long step) {
    return "#### default NPU: 16x16 array, mTile 16\n\n| rows | program cycles | array cycles | program cycles a row |\n"
        + "|---|---|---|---|\n| 1 | 76557 | 29940 | 76557 |\n| 15 | 151945 | 31564 | 10130 |\n"
        + "| 16 | 157508 | 31680 | 9844 |\n| 17 | " + (157508 + step) + " | " + (31680 + step / 2) + " | 10601 |\n";
  }

  private List<NpuReport.Trend> rows(String name, String text) throws Exception {
    Path dir = Files.createDirectories(tmp.resolve(name));
    if (text != null) {
      Files.writeString(dir.resolve("DllmBench.txt"), text);
    }
    return new DllmTrends(BenchResults.at(dir)).rows();
  }

  @Test
  void figuresEmbedTheRecordedStaircasePlotOnlyBesideAPassedSection() throws Exception {
    String svg = "<svg xmlns=\"http://www.w3.org/2000/svg\"><title>stairs</title></svg>\n";
    Path dir = Files.createDirectories(tmp.resolve("plot"));
    Files.writeString(dir.resolve(DllmTrends.STAIRCASE_SVG), svg);
    assertTrue(new DllmTrends(BenchResults.at(dir)).figures().isEmpty(), "no section, no figure");
    Files.writeString(dir.resolve("DllmBench.txt"), HEAD + section("staircase", stairs(22714)));
    List<NpuReport.Figure> f = new DllmTrends(BenchResults.at(dir)).figures();
    assertEquals(1, f.size());
    assertEquals(svg, f.get(0).svg());
    assertTrue(f.get(0).source().contains("DllmBench#staircase") && f.get(0).source().contains("DllmStaircase.svg"),
        f.get(0).source());
    Files.delete(dir.resolve(DllmTrends.STAIRCASE_SVG));
    assertTrue(new DllmTrends(BenchResults.at(dir)).figures().isEmpty(), "no file, no figure");
  }

  @Test
  void rowsQuoteTheRecordedTablesAndNameThem() throws Exception {
    List<NpuReport.Trend> r = rows("ok", HEAD + section("mechanisms", MECHANISMS) + section("staircase", stairs(22714)));
    assertEquals(7, r.size());
    for (NpuReport.Trend t : r) {
      assertTrue(t.source().contains("DllmBench#"), t.source());
      assertTrue(!t.verdict().equals("not measured"), t.finding() + ": " + t.why());
    }
    assertTrue(r.get(0).ours().contains("3.12×"), r.get(0).ours());
    assertEquals("agrees", r.get(0).verdict());
    assertEquals("partly", r.get(1).verdict());
    assertEquals("agrees", r.get(2).verdict());
    assertEquals("disagrees", r.get(4).verdict());
    assertEquals("agrees", r.get(6).verdict());
  }

  @Test
  void aFlatStaircaseDisagreesAndAMissingFileIsNotMeasured() throws Exception {
    List<NpuReport.Trend> flat = rows("flat", HEAD + section("mechanisms", MECHANISMS) + section("staircase", stairs(5000)));
    assertEquals("disagrees", flat.get(2).verdict());
    for (NpuReport.Trend t : rows("none", null)) {
      assertEquals("not measured", t.verdict());
      assertTrue(t.why().contains("DllmBench"), t.why());
    }
  }
}
