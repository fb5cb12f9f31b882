package org.llmnpu.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonOutputTest {
  /** A strict parser: no NaN tokens allowed. */
  private static JsonNode strict(String json) throws Exception {
    ObjectMapper om = new ObjectMapper();
    om.configure(JsonParser.Feature.ALLOW_NON_NUMERIC_NUMBERS, false);
    return om.readTree(json);
  }

  record Row(String name, double error, List<Double> values) {
  }

  @Test
  void nonFiniteNumbersBecomeNullWithAReason() throws Exception {
    ObjectNode o = JsonOutput.object();
    o.put("ok", 1.5).put("nan", Double.NaN).put("inf", Double.POSITIVE_INFINITY).put("ninf", Float.NEGATIVE_INFINITY);
    o.putObject("inner").put("x", Double.NaN);
    o.putArray("list").add(1.0).add(Double.NaN);
    String text = JsonOutput.compact(o);
    assertFalse(text.contains("\"NaN\"") || text.contains("Infinity\""), text);
    JsonNode j = strict(text);
    assertEquals(1.5, j.get("ok").doubleValue());
    assertTrue(j.get("nan").isNull());
    assertEquals("not a number", j.get("nanReason").asText());
    assertEquals("infinite", j.get("infReason").asText());
    assertEquals("-infinite", j.get("ninfReason").asText());
    assertTrue(j.get("inner").get("x").isNull());
    assertTrue(j.get("list").get(1).isNull());
    assertTrue(Double.isNaN(o.get("nan").doubleValue()), "the caller's tree is not changed");
  }

  @Test
  void recordsAndMapsAreCoveredToo() throws Exception {
    String text = JsonOutput.indented(Map.of("rows", List.of(new Row("a", Double.NaN, List.of(Double.NEGATIVE_INFINITY)))));
    JsonNode row = strict(text).get("rows").get(0);
    assertTrue(row.get("error").isNull());
    assertEquals("not a number", row.get("errorReason").asText());
    assertTrue(row.get("values").get(0).isNull());
  }
}
