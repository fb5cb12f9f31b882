package org.llmnpu.cli.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.llmnpu.cli.CliRun;
import org.llmnpu.hdl.tools.ExternalTool;

/** {@code npu cosim pim}: one JSON object for a small ragged FP8 GEMM, and one-line usage errors with exit 2. */
class CosimPimCommandTest {

  @Test
  void jsonReportsABitExactCycleExactRunWithWritebacksAndFpError() throws Exception {
    boolean verilator = ExternalTool.find("verilator").isPresent();
    if (!verilator && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("CI needs verilator");
    }
    assumeTrue(verilator, "verilator not installed");
    String out = CliRun.capture(true, 0, "cosim", "pim", "--mode", "fp8-pre", "--rows", "4", "--cols", "3",
        "--m", "2", "--k", "9", "--n", "5", "--align-bits", "6", "--ic-accum", "1", "--json");
    JsonNode j = new ObjectMapper().readTree(out);
    assertTrue(j.get("bitExact").asBoolean(), out);
    assertEquals(j.get("modelCycles").asLong(), j.get("rtlCycles").asLong(), out);
    assertEquals(2 * 2 * 5, j.get("psumWritebacks").asLong(), "3 row groups at depth 1: 2 write-backs per output");
    assertTrue(j.get("snrDbVsFp64").asDouble() > 0, out);
  }

  @Test
  void badParametersExitWithTwoAndOneLineNamingThem() {
    assertOneLine(CliRun.capture(false, 2, "cosim", "pim", "--mode", "fp9"), "--mode", "fp8-post");
    assertOneLine(CliRun.capture(false, 2, "cosim", "pim", "--rows", "0"), "--rows", "1..256");
    assertOneLine(CliRun.capture(false, 2, "cosim", "pim", "--mode", "fp8-pre", "--align-bits", "2"), "--align-bits", "4..16");
    assertOneLine(CliRun.capture(false, 2, "cosim", "pim", "--mode", "fp8-post", "--fp8", "e3m4"), "--fp8", "e4m3, e5m2");
    assertOneLine(CliRun.capture(false, 2, "cosim", "pim", "--bits-per-cycle", "9"), "--bits-per-cycle", "1..8");
    assertOneLine(CliRun.capture(false, 2, "cosim", "pim", "--ic-accum", "0"), "--ic-accum", "all or 1..65536");
    assertOneLine(CliRun.capture(false, 2, "cosim", "pim", "--weight-banks", "3"), "--weight-banks", "1 or 2");
    assertOneLine(CliRun.capture(false, 2, "cosim", "pim", "--mode", "fp8-post", "--input", "fp16"), "--input",
        "fp8, bf16, mxfp8, mxint8");
    assertOneLine(CliRun.capture(false, 2, "cosim", "pim", "--mode", "fp8-pre", "--input", "mxint8", "--rows", "48"),
        "--rows", "multiple of 32");
  }

  private static void assertOneLine(String err, String parameter, String allowed) {
    assertTrue(err.contains(parameter) && err.contains(allowed), err);
    assertEquals(1, err.strip().lines().count(), err);
  }
}
