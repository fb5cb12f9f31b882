package org.llmnpu.flow.dse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The sweep file: what it accepts, the errors it gives, the points' order and ids. */
class SweepFileTest {
  static final Path EXAMPLES = Path.of("examples").toAbsolutePath();

  private static SweepFile parse(String yaml) throws Exception {
    JsonNode tree = new ObjectMapper(new YAMLFactory()).readTree(yaml);
    return SweepFile.parse(tree, EXAMPLES);
  }

  private static String error(String yaml) {
    return assertThrows(IllegalArgumentException.class, () -> SweepPoints.of(parse(yaml))).getMessage();
  }

  private static final String BASE = "base: {config: tiny-npu.yaml}\nmodel: stories260K\n"
      + "workload: {promptLen: 16}\n";

  @Test
  void theShippedExampleHasFourPointsInNestedLoopOrder() {
    SweepFile s = SweepFile.read(EXAMPLES.resolve("sweep-small.yaml"));
    List<SweepPoint> points = SweepPoints.of(s);
    assertEquals(List.of(Map.of("rows", "4", "memBytesPerCycle", "2"), Map.of("rows", "4", "memBytesPerCycle", "4"),
        Map.of("rows", "8", "memBytesPerCycle", "2"), Map.of("rows", "8", "memBytesPerCycle", "4")),
        points.stream().map(SweepPoint::swept).toList());
    assertTrue(points.get(1).id().startsWith("rows4_memBytesPerCycle4-"), points.get(1).id());
    assertEquals(8, points.get(3).target().npu().rows());
    assertEquals(4, points.get(3).target().npu().memBytesPerCycle());
    assertEquals(2, points.get(3).target().npu().spadKiB(), "the base file's fields stay");
    assertEquals(100.0, points.get(0).target().clockMhz());
    assertEquals(List.of(Objective.values()), s.objectives());
  }

  @Test
  void idsAreStableAndChangeWithTheBase() throws Exception {
    String sweep = BASE + "parameters: {rows: [4, 8]}\n";
    assertEquals(SweepPoints.of(parse(sweep)).stream().map(SweepPoint::id).toList(),
        SweepPoints.of(parse(sweep)).stream().map(SweepPoint::id).toList());
    String other = BASE.replace("promptLen: 16", "promptLen: 32") + "parameters: {rows: [4, 8]}\n";
    assertNotEquals(SweepPoints.of(parse(sweep)).get(0).id(), SweepPoints.of(parse(other)).get(0).id());
  }

  @Test
  void rangesAndWorkloadParametersAreSwept() throws Exception {
    SweepFile s = parse(BASE + "parameters:\n  bandwidthGbs: {from: 0.1, to: 0.4, times: 2}\n"
        + "  promptLen: {from: 4, to: 32, times: 2}\n  fusion: [none, full]\n");
    assertEquals(List.of("0.1", "0.2", "0.4"), s.parameters().get("bandwidthGbs"));
    assertEquals(List.of("4", "8", "16", "32"), s.parameters().get("promptLen"));
    List<SweepPoint> points = SweepPoints.of(s);
    assertEquals(24, points.size());
    SweepPoint last = points.get(23);
    assertEquals(new Workload(32, "int8", "full", 0.4), last.workload());
  }

  @Test
  void badFilesNameTheKeyAndTheAllowedValues() {
    assertTrue(error(BASE + "parameters: {rows: [4, 5]}\n").contains("parameters.rows: '5' is not allowed; allowed:"));
    assertTrue(error(BASE + "parameters: {rowz: [4]}\n").contains("parameters.rowz: unknown parameter 'rowz'; "
        + "allowed: the NPU parameters (rows, "));
    assertTrue(error(BASE + "paramters: {rows: [4]}\n").contains("paramters: unknown key; allowed: name, base,"));
    assertTrue(error("base: {config: tiny-npu.yaml}\nmodel: llama-2-7b\nevaluation: rtl\nparameters: {rows: [4]}\n")
        .contains("evaluation: 'rtl' runs the model's weights on each point's RTL, so model must be stories260K"));
    assertTrue(error(BASE + "evaluation: spice\nparameters: {rows: [4]}\n")
        .contains("evaluation: 'spice' is not allowed; allowed: cycle-model, model, rtl"));
    assertTrue(error(BASE + "objectives: [area]\nparameters: {rows: [4]}\n")
        .contains("objectives: 'area' is not an objective; allowed: areaMm2, energyPerTokenJ, tpotS, ttftS"));
    assertTrue(error(BASE + "parameters: {quant: [int8, int3]}\n")
        .contains("parameters.quant: 'int3' is not allowed; allowed: int8, int4"));
    assertTrue(error(BASE + "parameters: {rows: {from: 4, to: 16}}\n")
        .contains("parameters.rows: a range takes exactly one of step (arithmetic) or times (geometric)"));
    assertTrue(error(BASE + "parameters: {bandwidthGbs: {from: 0.1, to: 0.3, step: 0.1}}\n")
        .contains("bandwidthGbs: 0.3 is not allowed on edge-64+config (4-byte lines at 100 MHz)"));
    assertTrue(error(BASE + "parameters: {engine: [pim]}\n").contains("engine pim is not estimated"));
    assertTrue(error(BASE + "node: 28\nparameters: {rows: [4]}\n").contains("node: 28 is not allowed; allowed: 180"));
    assertTrue(error(BASE + "energyTable: nowhere.json\nparameters: {rows: [4]}\n")
        .contains("energyTable: " + EXAMPLES.resolve("nowhere.json") + " does not exist"));
    assertTrue(error("model: stories260K\n").contains("parameters: give at least one swept parameter"));
  }
}
