package org.llmnpu.cli.sw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.soc.dllm.DllmStaircase;
import org.llmnpu.sw.model.ModelConfig;

/** {@code npu sw dllm}: its JSON keys on stories260K and its option errors (exit 2 naming the option); the staircase plot. */
class SwDllmCommandTest {
  @Test
  void jsonHasTheStudysKeysWithFiniteFigures() throws Exception {
    SwOutcome o = SwOutcome.run("dllm", "--generate", "48", "--block-size", "16", "--steps", "4", "--json");
    assertEquals(0, o.code(), o.err());
    JsonNode j = new ObjectMapper().readTree(o.out());
    assertEquals("trained", j.get("weights").asText());
    assertTrue(j.get("weightsNote").asText().contains("held-out"), j.get("weightsNote").asText());
    double share = j.get("confidentCommitShare").asDouble();
    assertTrue(share >= 0 && share <= 1, "confidentCommitShare " + share);
    for (String k : new String[] {"speedupVsAutoregressive", "speedupVsCpuOnly", "dllmS", "autoregressiveS"}) {
      assertTrue(j.has(k) && Double.isFinite(j.get(k).asDouble()) && j.get(k).asDouble() > 0, k + " in " + o.out());
    }
    assertEquals(7, j.get("variants").size());
    assertTrue(j.get("passes").asInt() <= 48 / 16 * 4);
    assertEquals(49, j.get("staircase").get("rows").size());
  }

  @Test
  void syntheticWeightsStaySelectableAndTheStaircaseIsPlotted(@TempDir Path dir) throws Exception {
    Path svg = dir.resolve("stair.svg");
    SwOutcome o = SwOutcome.run("dllm", "--weights", "synthetic", "--generate", "16", "--block-size", "16", "--steps",
        "2", "--json", "--staircase-svg", svg.toString());
    assertEquals(0, o.code(), o.err());
    assertEquals("synthetic", new ObjectMapper().readTree(o.out()).get("weights").asText());
    assertEquals(DllmStaircase.svg("stories260K", ModelConfig.stories260K(), 16 + 16, "sd8gen3"), Files.readString(svg));
  }

  @Test
  void badStaircasePathExitsTwoNamingTheOption(@TempDir Path dir) {
    for (String bad : new String[] {dir.resolve("no-such-folder").resolve("s.svg").toString(), dir.toString()}) {
      SwOutcome o = SwOutcome.run("dllm", "--staircase-svg", bad);
      assertEquals(2, o.code(), bad + ": " + o.err());
      assertTrue(o.err().contains("--staircase-svg"), o.err());
    }
  }

  @Test
  void badOptionsExitTwoNamingTheOption() {
    String[][] bad = {{"--generate", "600"}, {"--prompt", "0"}, {"--block-size", "0"}, {"--steps", "40"},
        {"--threshold", "0"}, {"--speculative-blocks", "9"}, {"--revision", "gpu"}, {"--revise-rows", "-1"},
        {"--preset", "pixel"}, {"--model", "nosuch"}, {"--weights", "random"}};
    String[] names = {"--generate", "--prompt", "--block-size", "--steps", "--threshold", "--speculative-blocks",
        "--revision", "--revise-rows", "--preset", "--model", "--weights"};
    for (int i = 0; i < bad.length; i++) {
      SwOutcome o = SwOutcome.run("dllm", bad[i][0], bad[i][1]);
      assertEquals(2, o.code(), String.join(" ", bad[i]) + ": " + o.err());
      assertTrue(o.err().contains(names[i]), o.err());
    }
  }
}
