package org.llmnpu.cli.soc;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.llmnpu.cli.CliRun;

class SocCommandTest {
  @Test
  void analyzeJsonCarriesTheIssueKeys() throws Exception {
    String out = CliRun.capture(true, 0, "soc", "analyze", "--preset", "sd8gen3", "--model", "stories260K",
        "--prompt-len", "32", "--gen-tokens", "4", "--json");
    assertFalse(out.contains("NaN"), out);
    JsonNode j = new ObjectMapper().readTree(out);
    JsonNode first = j.get("stages").get(0);
    for (String key : new String[] {"stage", "backend", "timeS", "energyJ", "callToOpRatio"}) {
      assertTrue(first.has(key), key);
    }
    assertTrue(j.get("findings").isArray() && j.get("findings").size() > 0);
  }

  @Test
  void partitionJsonCarriesPlanAndSpeedup() throws Exception {
    String out = CliRun.capture(true, 0, "soc", "partition", "--model", "stories260K", "--prompt-len", "40", "--json");
    JsonNode j = new ObjectMapper().readTree(out);
    assertTrue(j.get("plan").isArray() && j.get("plan").size() > 0, out);
    assertTrue(j.has("speedupOverBestSingle"), out);
  }

  /** {@code -p} and {@code --config} change the SoC's NPU as in {@code npu estimate}, and the output says so. */
  @Test
  void theNpuTakesParametersAndAFileOverThePresetsNpu(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp)
      throws Exception {
    String[] base = {"soc", "analyze", "--model", "stories260K", "--prompt-len", "32", "--gen-tokens", "4",
        "--backends", "npu", "--json"};
    JsonNode preset = new ObjectMapper().readTree(CliRun.capture(true, 0, base));
    java.nio.file.Path file = tmp.resolve("slow.yaml");
    java.nio.file.Files.writeString(file, "clockMhz: 500\n");
    String[] changed = java.util.stream.Stream.concat(java.util.Arrays.stream(base),
        java.util.stream.Stream.of("--config", file.toString(), "-p", "memBytesPerCycle=16")).toArray(String[]::new);
    JsonNode slow = new ObjectMapper().readTree(CliRun.capture(true, 0, changed));
    assertTrue(slow.get("notes").toString().contains("overridden by " + file + " with -p memBytesPerCycle=16"),
        slow.get("notes").toString());
    assertFalse(preset.get("notes").toString().contains("npu configuration"), preset.get("notes").toString());
    double presetDecode = decodeSeconds(preset);
    double slowDecode = decodeSeconds(slow);
    // half the clock and a quarter of the bandwidth: a decode step takes well over twice as long
    assertTrue(slowDecode > 2 * presetDecode, slowDecode + " s against " + presetDecode + " s");
    String text = CliRun.capture(true, 0, "soc", "partition", "--model", "stories260K", "--prompt-len", "40",
        "-p", "memBytesPerCycle=16");
    assertTrue(text.contains("npu configuration: preset edge-64 (shipped edge-64.yaml) with -p memBytesPerCycle=16"),
        text);
    String err = CliRun.capture(false, 2, "soc", "speculative", "--model", "stories260K", "-p", "rows");
    assertTrue(err.contains("parameter 'rows' must be written name=value"), err);
  }

  private static double decodeSeconds(JsonNode analysis) {
    for (JsonNode s : analysis.get("stages")) {
      if (s.get("stage").asText().equals("decode")) {
        return s.get("timeS").asDouble();
      }
    }
    throw new AssertionError("no decode stage in " + analysis);
  }

  @Test
  void badOptionsExitWithTwoNamingTheOptionAndTheAllowedValues() {
    String[][] cases = {
        {"analyze", "--preset", "sd888", "--preset: 'sd888' is not allowed; allowed: sd8gen3, lunar-lake, host"},
        {"analyze", "--npu", "theirs", "--npu: 'theirs' is not allowed; allowed: ours, paper"},
        {"analyze", "--backends", "cpu,tpu", "--backends: 'tpu' is not allowed; allowed: cpu, gpu, npu"},
        {"analyze", "--quant", "int2", "--quant: 'int2' is not allowed; allowed: int8, int4, int4-g32, s2_4, mxfp8"},
        {"analyze", "--prompt-len", "0", "--prompt-len: 0 is not allowed; allowed: 1..511"},
        {"partition", "--sync", "sleep", "--sync: 'sleep' is not allowed; allowed: fast, driver"},
        {"partition", "--preset", "host", "--preset: host has no GPU"},
        {"speculative", "--draft", "int2", "--draft: 'int2' is not allowed; allowed: int4, int4-g32, int8"},
        {"speculative", "--preset", "sd888", "--preset: 'sd888' is not allowed; allowed: sd8gen3, lunar-lake, host"},
    };
    for (String[] c : cases) {
      String err = CliRun.capture(false, 2, "soc", c[0], "--model", "stories260K", c[1], c[2]);
      assertTrue(err.contains(c[3]), String.join(" ", c) + " -> " + err);
    }
    String err = CliRun.capture(false, 2, "soc", "analyze", "--model", "gpt-5");
    assertTrue(err.contains("--model: 'gpt-5' is neither a named model (") && err.contains("llama-3.2-3b"), err);
  }
}
