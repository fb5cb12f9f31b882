package org.llmnpu.flow.dse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.flow.exec.LocalExecutor;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.reports.estimate.NpuEstimate;
import org.llmnpu.reports.ppa.BlockDesigns;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.reports.ppa.PpaFlow;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.rtl.npu.NpuParameter;

/**
 * Sweeps run end to end through the local executor, each point a real process: objectives equal to what
 * {@code npu estimate} and the PPA flow give for the point, the report's files, failures and reruns.
 * The points synthesize the tiny NPU at 5 ns in the tests' shared PPA cache ({@code target/ppa-test-cache} at the
 * reactor's root, passed to the points' processes by {@link DseRun#javaCommand}): the synthesis reports'
 * {@code NpuBlockPpaTest} and {@code CalibrationTest} made (the same Verilog, clock and flow), so a cold build does not
 * synthesize it again here (at 10 ns, in a cache of its own, it took about 4 CPU minutes, once).
 */
class DseRunTest {
  /** The synthesis clock of the points, the reports tests' ({@code PpaOptions.defaults()}). */
  private static final double CLOCK_NS = 5;
  private static String cacheBefore;

  @TempDir Path dir;
  private final ByteArrayOutputStream log = new ByteArrayOutputStream();
  private final PrintStream progress = new PrintStream(log, true, StandardCharsets.UTF_8);

  @BeforeAll
  static void useTheSharedPpaCache() {
    cacheBefore = System.getProperty("llmnpu.ppa.cache");
    String root = System.getProperty("llmnpu.repoRoot");
    System.setProperty("llmnpu.ppa.cache", (root == null || root.isBlank() ? Path.of("") : Path.of(root))
        .toAbsolutePath().resolve(Path.of("target", "ppa-test-cache")).toString());
  }

  @AfterAll
  static void restoreThePpaCache() {
    if (cacheBefore == null) {
      System.clearProperty("llmnpu.ppa.cache");
    } else {
      System.setProperty("llmnpu.ppa.cache", cacheBefore);
    }
  }

  private SweepFile sweep(String objectives, String parameters) throws Exception {
    Path file = dir.resolve("sweep.yaml");
    Files.writeString(file, "name: test\nbase: {config: " + SweepFileTest.EXAMPLES.resolve("tiny-npu.yaml") + "}\n"
        + "model: stories260K\nworkload: {promptLen: 16}\nsynthesis: {clockNs: " + CLOCK_NS + "}\nnode: 7\n"
        + "energyTable: " + SweepFileTest.EXAMPLES.resolve("../../soc/src/main/resources/org/llmnpu/soc/npu-energy.json").normalize() + "\n"
        + "objectives: " + objectives + "\nparameters: " + parameters + "\n");
    return SweepFile.read(file);
  }

  @Test
  void twoTinyPointsGiveTheEstimatesAreaEnergyAndAReproducibleReport() throws Exception {
    SweepFile s = sweep("[areaMm2, energyPerTokenJ, tpotS, ttftS]", "{memBytesPerCycle: [2, 4]}");
    Path out = dir.resolve("out");
    DseRun.Summary sum = DseRun.run(s, out, new LocalExecutor(2, progress, Duration.ofSeconds(5)), 1,
        DseRun.javaCommand(), progress);
    assertEquals(2, sum.done().size(), log.toString(StandardCharsets.UTF_8));

    JsonNode pareto = new ObjectMapper().readTree(out.resolve("pareto.json").toFile());
    List<SweepPoint> points = SweepPoints.of(s);
    Map<String, String> rtl = NpuParameter.valuesOf(points.get(0).target().npu(), true);
    PpaResult ppa = PpaFlow.run(BlockDesigns.of(BlockRegistry.find("npu")).design(rtl), rtl,
        PpaOptions.defaults().withClockNs(CLOCK_NS));
    double area = (ppa.synthesis().chipAreaUm2() * NodeScaling.area(NodeScaling.Node.N7)
        + ppa.sramAreaUm2(NodeScaling.Node.N7)) / 1e6;
    List<double[]> vectors = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      JsonNode p = pareto.get("points").get(i);
      assertEquals(points.get(i).id(), p.get("id").asText());
      assertEquals("done", p.get("status").asText());
      NpuEstimate e = NpuEstimate.run(new NpuEstimate.Options("stories260K", "edge-64",
          out.resolve("points").resolve(points.get(i).id()).resolve("npu.yaml"), 16, "int8", "full", null,
          s.energyTable(), 7));
      JsonNode o = p.get("objectives");
      assertEquals(e.tpotS(), o.get("tpotS").asDouble());
      assertEquals(e.ttftS(), o.get("ttftS").asDouble());
      assertEquals(e.energyPerTokenJ(), o.get("energyPerTokenJ").asDouble());
      assertEquals(area, o.get("areaMm2").asDouble(), 1e-12);
      assertEquals(String.valueOf(2 * (i + 1)), p.get("configuration").get("memBytesPerCycle").asText());
      assertTrue(p.get("sources").get("areaMm2").asText().contains("clock 5 ns"), p.toString());
      vectors.add(new double[] {o.get("areaMm2").asDouble(), o.get("energyPerTokenJ").asDouble(),
          o.get("tpotS").asDouble(), o.get("ttftS").asDouble()});
    }
    assertTrue(vectors.get(1)[2] < vectors.get(0)[2], "twice the bandwidth, shorter TPOT");
    boolean[] front = Pareto.front(vectors);
    for (int i = 0; i < 2; i++) {
      assertEquals(front[i], pareto.get("points").get(i).get("onFront").asBoolean());
    }
    String html = Files.readString(out.resolve("index.html"));
    assertEquals(6, html.split("<svg ", -1).length - 1, "the 6 pairs of 4 objectives");
    assertTrue(Files.readString(out.resolve("points.csv")).startsWith("id,status,onFront,memBytesPerCycle,areaMm2,"));

    List<String> before = reportFiles(out);
    FileTime written = Files.getLastModifiedTime(out.resolve("points").resolve(points.get(0).id())
        .resolve("result.json"));
    DseRun.run(s, out, new LocalExecutor(2, progress, Duration.ofSeconds(5)), 1, DseRun.javaCommand(), progress);
    assertEquals(before, reportFiles(out), "same inputs, same bytes");
    assertEquals(written, Files.getLastModifiedTime(out.resolve("points").resolve(points.get(0).id())
        .resolve("result.json")), "a finished point is not run again");
  }

  @Test
  void aFailedPointIsReportedWithItsCauseAndARerunRunsOnlyIt() throws Exception {
    SweepFile s = sweep("[tpotS, ttftS]", "{fusion: [none, full]}");
    Path out = dir.resolve("out");
    Path allow = dir.resolve("allow-none");
    // the fusion-none point's process fails until the marker exists
    List<String> java = new ArrayList<>(List.of("sh", "-c", "case \"$*\" in *fusionnone*) [ -f " + allow
        + " ] || { echo refused by the test >&2; exit 3; };; esac; exec \"$0\" \"$@\""));
    List<String> jvm = DseRun.javaCommand();
    java.addAll(jvm);
    DseRun.Summary first = DseRun.run(s, out, new LocalExecutor(2, progress, Duration.ofSeconds(5)), 1, java,
        progress);
    assertEquals(1, first.failed().size());
    JsonNode p0 = new ObjectMapper().readTree(out.resolve("pareto.json").toFile()).get("points").get(0);
    assertEquals("failed", p0.get("status").asText());
    assertEquals("exit code 3; stderr ends: refused by the test", p0.get("cause").asText());
    assertNull(p0.get("objectives"));
    String done = first.done().get(0);
    FileTime written = Files.getLastModifiedTime(out.resolve("points").resolve(done).resolve("result.json"));

    Files.createFile(allow);
    DseRun.Summary second = DseRun.run(s, out, new LocalExecutor(2, progress, Duration.ofSeconds(5)), 1, java,
        progress);
    assertEquals(2, second.done().size());
    assertEquals(written, Files.getLastModifiedTime(out.resolve("points").resolve(done).resolve("result.json")));
    JsonNode pareto = new ObjectMapper().readTree(out.resolve("pareto.json").toFile());
    assertEquals(List.of("tpotS", "ttftS"), new ObjectMapper().convertValue(pareto.get("frontObjectives"),
        List.class));
    assertTrue(pareto.get("points").get(0).get("objectives").get("tpotS").asDouble()
        > pareto.get("points").get(1).get("objectives").get("tpotS").asDouble(), "fusion full decodes faster");
  }

  private static List<String> reportFiles(Path out) throws Exception {
    List<String> files = new ArrayList<>();
    for (String f : List.of("pareto.json", "points.csv", "index.html")) {
      files.add(Files.readString(out.resolve(f)));
    }
    return files;
  }
}
