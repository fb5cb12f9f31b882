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
 * {@code npu cosim gemm}: one JSON object for a small 2:4 GEMM with the PPM, and one-line usage errors with exit 2
 * (the run itself: cosim's {@code GemmCosimRunTest}).
 */
class CosimGemmCommandTest {

  @Test
  void jsonReportsBitExactCycleExactRunWithWritebacks() throws Exception {
    boolean verilator = ExternalTool.find("verilator").isPresent();
    if (!verilator && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("CI needs verilator");
    }
    assumeTrue(verilator, "verilator not installed");
    String out = CliRun.capture(true, 0, "cosim", "gemm", "--rows", "4", "--cols", "4", "--m", "9", "--k", "20",
        "--n", "6", "--sparsity", "s2_4", "--ic-accum", "1", "--seed", "3", "--activation", "relu", "--json");
    JsonNode j = new ObjectMapper().readTree(out);
    assertTrue(j.get("bitExact").asBoolean(), out);
    assertEquals(j.get("modelCycles").asLong(), j.get("rtlCycles").asLong(), out);
    assertEquals(2 * 9 * 6, j.get("psumWritebacks").asLong(), "kTiles 3 at depth 1: 2 write-backs per output");
    assertEquals(j.get("psumWritebacks").asLong(), j.get("psumReadbacks").asLong());
    assertTrue(j.get("ppmBitExact").asBoolean(), out);
    assertEquals(j.get("modelTotalCycles").asLong(), j.get("totalCycles").asLong(), out);
  }

  @Test
  void badParametersExitWithTwoAndOneLineNamingThem() {
    assertOneLine(CliRun.capture(false, 2, "cosim", "gemm", "--rows", "0"), "--rows", "1..128");
    assertOneLine(CliRun.capture(false, 2, "cosim", "gemm", "--sparsity", "s8_16"), "--sparsity", "none, s2_4, s4_8");
    assertOneLine(CliRun.capture(false, 2, "cosim", "gemm", "--ic-accum", "0"), "--ic-accum", "all or 1..65536");
    assertOneLine(CliRun.capture(false, 2, "cosim", "gemm", "--rows", "5", "--sparsity", "s2_4"), "--rows", "multiple of 2");
    assertOneLine(CliRun.capture(false, 2, "cosim", "gemm", "--rows", "6", "--sparsity", "s4_8"), "--rows", "multiple of 4");
    assertOneLine(CliRun.capture(false, 2, "cosim", "gemm", "--acc-width", "40"), "--acc-width", "2..32");
    assertOneLine(CliRun.capture(false, 2, "cosim", "gemm", "--activation", "swish"), "--activation", "gelu");
  }

  private static void assertOneLine(String err, String parameter, String allowed) {
    assertTrue(err.contains(parameter) && err.contains(allowed), err);
    assertEquals(1, err.strip().lines().count(), err);
  }
}
