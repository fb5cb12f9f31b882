package org.llmnpu.cli.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.llmnpu.cli.CliRun;
import org.llmnpu.hdl.tools.ExternalTool;

/** {@code npu cosim mx}: every unit bit-exact for FP4 in one JSON object; a bad format exits 2 with one line. */
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
    assertEquals(16 * 256, j.get("units").get(0).get("cases").asLong(), "decode: every code x every scale");
    assertEquals(0.5, j.get("units").get(1).get("maxError").asDouble(), 1e-12, "RNE: at most half an element ulp");
  }

  @Test
  void badFormatExitsWithTwoAndOneLineNamingTheParameterAndTheAllowedValues() {
    String err = CliRun.capture(false, 2, "cosim", "mx", "--format", "fp5");
    assertTrue(err.contains("--format") && err.contains("fp8_e4m3, fp8_e5m2, fp6_e3m2, fp6_e2m3, fp4_e2m1, int8"), err);
    assertEquals(1, err.strip().lines().count(), err);
  }
}
