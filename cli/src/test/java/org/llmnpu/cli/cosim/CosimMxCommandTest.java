package org.llmnpu.cli.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.llmnpu.cli.CliRun;
import org.llmnpu.hdl.tools.ExternalTool;

/**
 * {@code npu cosim mx}: one JSON object with every unit's fields; a bad format exits 2 with one line (the units'
 * results: cosim's {@code MxCosimRunTest}).
 */
class CosimMxCommandTest {

  @Test
  void fp4UnitsAreBitExactInJson() throws Exception {
    boolean verilator = ExternalTool.find("verilator").isPresent();
    if (!verilator && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("CI needs verilator");
    }
    assumeTrue(verilator, "verilator not installed");
    String out = CliRun.capture(true, 0, "cosim", "mx", "--format", "fp4_e2m1", "--blocks", "8", "--json");
    JsonNode j = new ObjectMapper().readTree(out);
    assertTrue(j.get("bitExact").asBoolean(), out);
    assertEquals(6, j.get("units").size(), out);
    for (JsonNode u : j.get("units")) {
      for (String field : new String[] {"unit", "cases", "mismatches", "bitExact", "maxError", "errorUnit", "cycles",
          "cycleFormula"}) {
        assertTrue(u.has(field), field + " in " + u);
      }
    }
    assertEquals("fp4_e2m1", j.get("format").asText(), out);
    assertEquals(8, j.get("blocks").asInt(), out);
  }

  @Test
  void badFormatExitsWithTwoAndOneLineNamingTheParameterAndTheAllowedValues() {
    String err = CliRun.capture(false, 2, "cosim", "mx", "--format", "fp5");
    assertTrue(err.contains("--format") && err.contains("fp8_e4m3, fp8_e5m2, fp6_e3m2, fp6_e2m3, fp4_e2m1, int8"), err);
    assertEquals(1, err.strip().lines().count(), err);
  }
}
