package org.llmnpu.cli.sw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** {@code npu sw shadow}: its JSON keys on stories260K and its option errors (exit 2 naming the option). */
class SwShadowCommandTest {
  @Test
  void jsonHasTheStudysKeysWithFiniteFigures() throws Exception {
    SwOutcome o = SwOutcome.run("shadow", "--context", "96", "--calibration", "1", "--held-out", "1",
        "--large-context", "256", "--json");
    assertEquals(0, o.code(), o.err());
    JsonNode j = new ObjectMapper().readTree(o.out());
    for (String k : new String[] {"topkRecall", "int8FullAttentionTop1", "shadowTop1", "denseTop1", "speedupVsDense"}) {
      assertTrue(j.has(k) && Double.isFinite(j.get(k).asDouble()), k + " in " + o.out());
    }
    assertTrue(j.get("topkRecall").asDouble() > 0.5 && j.get("topkRecall").asDouble() <= 1.0);
    assertTrue(j.get("pipeline").get("outOfOrderS").asDouble() <= j.get("pipeline").get("serialS").asDouble());
    assertEquals("llama-2-7b", j.get("llama2_7b").get("model").asText());
  }

  @Test
  void badOptionsExitTwoNamingTheOption() {
    String[][] bad = {{"--context", "4000"}, {"--mass-share", "1.5"}, {"--scale-step", "1"}, {"--shape-step", "10"},
        {"--preset", "pixel"}, {"--min-keep", "0"}, {"--model", "nosuch"}, {"--large-context", "9000"}};
    String[] names = {"--context", "--mass-share", "--scale-buckets/--scale-step", "--shape-step", "--preset",
        "--min-keep", "--model", "--large-context"};
    for (int i = 0; i < bad.length; i++) {
      SwOutcome o = SwOutcome.run("shadow", bad[i][0], bad[i][1]);
      assertEquals(2, o.code(), String.join(" ", bad[i]) + ": " + o.err());
      assertTrue(o.err().contains(names[i]), o.err());
    }
  }
}
