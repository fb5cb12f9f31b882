package org.llmnpu.reports.html;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.reports.RequiredTools;
import org.llmnpu.reports.TestDesigns;
import org.llmnpu.reports.ppa.ContentCache;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.reports.ppa.PpaSweep;

class ReportTest {
  @BeforeEach
  void tools() {
    RequiredTools.require("yosys", "sta");
  }

  static PpaReport counterSweep(PpaOptions o) {
    List<PpaResult> points = PpaSweep.run(p -> TestDesigns.counter(Integer.parseInt(p.get("width"))),
        Map.of(), "width", List.of("4", "8", "16", "32"), o);
    return PpaReport.of("counter", "width", points, o);
  }

  @Test
  void sweepOfCounterWidthGrowsAreaAndPowerAndLowersFmax() {
    PpaReport r = counterSweep(TestDesigns.options());
    for (int i = 1; i < r.points().size(); i++) {
      PpaResult a = r.points().get(i - 1);
      PpaResult b = r.points().get(i);
      assertTrue(b.synthesis().chipAreaUm2() > a.synthesis().chipAreaUm2(), "area grows with width");
      assertTrue(b.power().totalMw() > a.power().totalMw(), "power grows with width");
    }
    double first = r.points().get(0).timing().fmaxMhz();
    double last = r.points().get(r.points().size() - 1).timing().fmaxMhz();
    assertTrue(last < first, "a 32-bit carry chain is slower than a 4-bit one: " + first + " vs " + last + " MHz");
  }

  @Test
  void identicalInputsGiveByteIdenticalReportsEvenWithoutTheCache(@TempDir Path tmp) throws IOException {
    PpaOptions o1 = TestDesigns.options().withCache(new ContentCache(tmp.resolve("cache1")));
    PpaOptions o2 = TestDesigns.options().withCache(new ContentCache(tmp.resolve("cache2")));
    ReportWriter.write(counterSweep(o1), tmp.resolve("a"));
    ReportWriter.write(counterSweep(o2), tmp.resolve("b"));
    for (String f : List.of("index.html", "ppa.json", "ppa.csv")) {
      assertArrayEquals(Files.readAllBytes(tmp.resolve("a").resolve(f)), Files.readAllBytes(tmp.resolve("b").resolve(f)), f);
    }
  }

  @Test
  void jsonAndCsvCarryTheMeasuredAndScaledNumbers(@TempDir Path tmp) throws IOException {
    PpaOptions o = TestDesigns.options();
    PpaResult fifo = PpaSweep.run(p -> TestDesigns.fifo(), Map.of(), null, List.of(), o).get(0);
    ReportWriter.write(PpaReport.of("fifo", null, List.of(fifo), o), tmp.resolve("out"));
    JsonNode json = new ObjectMapper().readTree(tmp.resolve("out/ppa.json").toFile());
    JsonNode point = json.get("points").get(0);
    assertEquals(fifo.synthesis().chipAreaUm2(), point.get("synthesis").get("stdCellAreaUm2").asDouble());
    assertEquals(fifo.timing().fmaxMhz(), point.get("timing").get("fmaxMhz").asDouble());
    assertEquals(16, point.get("sramMacros").get(0).get("depth").asInt());
    JsonNode nodes = point.get("nodes");
    assertEquals(List.of(180, 45, 7), List.of(nodes.get(0).get("nodeNm").asInt(), nodes.get(1).get("nodeNm").asInt(),
        nodes.get(2).get("nodeNm").asInt()));
    assertTrue(nodes.get(1).get("logicAreaUm2").asDouble() < nodes.get(0).get("logicAreaUm2").asDouble());
    assertTrue(nodes.get(2).get("fmaxMhz").asDouble() > nodes.get(1).get("fmaxMhz").asDouble());
    List<String> csv = Files.readAllLines(tmp.resolve("out/ppa.csv"));
    assertEquals(4, csv.size(), "header and three nodes");
    assertTrue(csv.get(0).contains("logic_area_um2") && csv.get(0).contains("fmax_MHz"));
    String html = Files.readString(tmp.resolve("out/index.html"));
    assertTrue(html.contains("<title>PPA report: fifo</title>"));
    assertFalse(html.contains("http://") && !html.contains("xmlns=\"http://www.w3.org/2000/svg\""));
    assertFalse(html.contains("<script") || html.contains("<link") || html.contains("src="), "no external resources");
  }

  @Test
  void rewritingAReportReplacesItsFilesKeepsOthersAndLeavesNoTemporaries(@TempDir Path tmp) throws IOException {
    PpaReport r = counterSweep(TestDesigns.options());
    Path out = tmp.resolve("report");
    ReportWriter.write(r, out);
    Files.writeString(out.resolve("notes.txt"), "the user's");
    Files.writeString(out.resolve("ppa.csv"), "stale");
    ReportWriter.write(r, out);
    assertEquals("the user's", Files.readString(out.resolve("notes.txt")));
    assertFalse(Files.readString(out.resolve("ppa.csv")).equals("stale"));
    try (var list = Files.list(tmp)) {
      assertEquals(List.of(out), list.toList());
    }
    try (var list = Files.list(out)) {
      assertEquals(List.of(".llmnpu-files", "index.html", "notes.txt", "ppa.csv", "ppa.json"),
          list.map(p -> p.getFileName().toString()).sorted().toList());
    }
  }
}
