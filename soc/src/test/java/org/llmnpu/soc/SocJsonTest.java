package org.llmnpu.soc;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

class SocJsonTest {
  @Test
  void analyzeJsonHasStagesAndFindingsAndNoNaN() throws Exception {
    String json = SocOutput.json(StageAnalysis.run(new StageAnalysis.Options("sd8gen3", "stories260K", 32, 8, "int4",
        "vertical", "paper", false, true, List.of("cpu", "gpu", "npu"))));
    assertFalse(json.contains("NaN") || json.contains("Infinity"), json);
    JsonNode j = new ObjectMapper().readTree(json);
    assertTrue(j.get("stages").size() >= 10);
    for (JsonNode s : j.get("stages")) {
      for (String key : new String[] {"stage", "backend", "timeS", "energyJ", "callToOpRatio"}) {
        assertTrue(s.has(key), key + " in " + s);
      }
      assertTrue(s.get("timeS").asDouble() > 0, s.toString());
    }
    assertTrue(j.get("findings").size() >= 6, j.get("findings").toString());
  }

  @Test
  void partitionJsonHasPlanAndSpeedupAndNoNaN() throws Exception {
    String json = PartitionOutput.json(HeteroPlan.run(new HeteroPlan.Options("sd8gen3", "stories260K", 40, "int4",
        "vertical", "fast")));
    assertFalse(json.contains("NaN") || json.contains("Infinity"), json);
    JsonNode j = new ObjectMapper().readTree(json);
    assertTrue(j.get("plan").size() >= 16, json);
    assertTrue(j.get("speedupOverBestSingle").get("prefill").asDouble() > 0, json);
    assertTrue(j.get("speedupOverBestSingle").get("decode").asDouble() > 0, json);
  }
}
