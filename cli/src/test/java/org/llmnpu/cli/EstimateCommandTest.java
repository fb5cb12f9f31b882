package org.llmnpu.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class EstimateCommandTest {
  @Test
  void jsonCarriesTheIssueKeys() throws Exception {
    String out = CliRun.capture(true, 0, "estimate", "--model", "stories260K", "--prompt-len", "16", "--quant", "int8",
        "--bandwidth-gbs", "16", "--json");
    JsonNode j = new ObjectMapper().readTree(out);
    for (String key : new String[] {"ttftS", "tpotS", "prefillMacUtilization", "decodeBandwidthUtilization",
        "decodeDramBytesPerToken", "energyPerTokenJ"}) {
      assertTrue(j.has(key), key + " in " + out);
    }
    assertEquals(16, j.get("npu").get("memBytesPerCycle").asInt());
    assertEquals("edge-64", j.get("npu").get("name").asText());
  }

  @Test
  void textNamesTheFiguresWithUnits() {
    String out = CliRun.capture(true, 0, "estimate", "--model", "stories260K", "--prompt-len", "8");
    assertTrue(out.contains("TTFT") && out.contains(" s ") && out.contains("TPOT") && out.contains(" ms "), out);
    assertTrue(out.contains("decode bandwidth utilization"), out);
  }

  @Test
  void badOptionsExitWithTwoNamingTheOption() {
    String[][] cases = {
        {"--fusion", "partial", "--fusion: 'partial' is not allowed; allowed: none, vertical, full"},
        {"--qkv-scales", "per-head", "--qkv-scales: 'per-head' is not allowed; allowed: dynamic, static"},
        {"--quant", "int2", "--quant: 'int2' is not allowed; allowed: int8, int4, int4-g32, s2_4, mxfp8"},
        {"--bandwidth-gbs", "fast", "--bandwidth-gbs: 'fast' is not a positive number of GB/s"},
        {"--bandwidth-gbs", "40", "--bandwidth-gbs: 40 is not allowed on edge-64"},
        {"--preset", "edge-8", "--preset: 'edge-8' is not allowed; allowed: edge-64"},
        {"--prompt-len", "0", "--prompt-len: 0 is not allowed; allowed: 1..511"},
        {"--node", "3", "--node: 3 is not allowed; allowed: 180, 45, 7"},
        {"--energy-table", "/nonexistent/energy.json", "--energy-table: cannot read /nonexistent/energy.json"},
    };
    for (String[] c : cases) {
      String err = CliRun.capture(false, 2, "estimate", "--model", "stories260K", c[0], c[1]);
      assertTrue(err.contains(c[2]), c[0] + " " + c[1] + ": " + err);
    }
    String model = CliRun.capture(false, 2, "estimate", "--model", "gpt-5");
    assertTrue(model.contains("--model: 'gpt-5' is neither a named model (llama-2-7b, llama-3-8b, qwen2.5-1.5b, "
        + "stories260K)"), model);
  }

  @Test
  void pSetsNpuParametersOverThePresetAndTheConfigFile() throws Exception {
    java.nio.file.Path file = java.nio.file.Files.createTempFile("estimate", ".yaml");
    try {
      java.nio.file.Files.writeString(file, "memory: {bytesPerCycle: 32, latency: 50}\n");
      String out = CliRun.capture(true, 0, "estimate", "--model", "stories260K", "--prompt-len", "8", "--config",
          file.toString(), "-p", "memBytesPerCycle=16", "--json");
      JsonNode npu = new ObjectMapper().readTree(out).get("npu");
      assertEquals(16, npu.get("memBytesPerCycle").asInt(), "-p over the file");
      assertTrue(npu.get("name").asText().endsWith("+p"), out);
    } finally {
      java.nio.file.Files.deleteIfExists(file);
    }
    String err = CliRun.capture(false, 2, "estimate", "--model", "stories260K", "-p", "memLatency=0");
    assertTrue(err.contains("-p memLatency: memLatency must be in 1..1000000, got '0'"), err);
    err = CliRun.capture(false, 2, "estimate", "--model", "stories260K", "-p", "arrayRows=8");
    assertTrue(err.contains("unknown NPU parameter 'arrayRows'; allowed: rows, spadKiB"), err);
    assertEquals(1, err.strip().lines().count(), err);
  }
}
