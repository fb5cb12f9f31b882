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
 * {@code npu cosim dsp}: what it prints (JSON fields, text lines) for a run; bad options exit 2 with one line naming
 * the option and the allowed values. The runs themselves (every kernel path, model inputs) are tested in cosim's
 * {@code DspCosimRunTest}.
 */
class CosimDspCommandTest {

  @Test
  void jsonReportsTheRunTheFormulaAndItsTerms() throws Exception {
    boolean verilator = ExternalTool.find("verilator").isPresent();
    if (!verilator && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("CI needs verilator");
    }
    assumeTrue(verilator, "verilator not installed");
    String out = CliRun.capture(true, 0, "cosim", "dsp", "--kernel", "softmax", "--len", "128", "--lanes", "8",
        "--json");
    JsonNode j = new ObjectMapper().readTree(out);
    assertEquals("softmax", j.get("kernel").asText(), out);
    assertEquals(4, j.get("executeStages").asInt(), "the default: " + out);
    assertEquals("random", j.get("inputs").asText(), out);
    assertTrue(j.get("bitExact").asBoolean(), out);
    assertEquals(j.get("formulaCycles").asLong(), j.get("rtlCycles").asLong(), out);
    assertTrue(j.get("maxUlpErrorVsDouble").asDouble() <= j.get("ulpBound").asDouble(), out);
    assertTrue(j.get("cycleFormula").asText().contains("*log2(8)") && j.get("cycleFormula").asText().contains("groups of"),
        out);
    assertTrue(j.get("instructions").asInt() > 0 && j.get("bufferRows").asInt() >= 16, out);
  }

  @Test
  void textShowsBitExactnessErrorAndCycles() {
    boolean verilator = ExternalTool.find("verilator").isPresent();
    assumeTrue(verilator || "true".equals(System.getenv("CI")), "verilator not installed");
    String out = CliRun.capture(true, 0, "cosim", "dsp", "--kernel", "silu", "--len", "40", "--stages", "1");
    assertTrue(out.startsWith("vector-dsp silu, len 40, 8 lanes, 1 execute stage, seed 1"), out);
    assertTrue(out.contains("bit-exact with the golden kernel: yes (40 outputs)"), out);
    assertTrue(out.contains("rows") && !out.contains("MISMATCH"), out);
  }

  @Test
  void modelInputsRefuseALengthAndKernelsWithoutAModelStep() {
    assertTrue(CliRun.capture(false, 2, "cosim", "dsp", "--kernel", "softmax", "--inputs", "model", "--len", "64")
        .contains("--len"));
    assertTrue(CliRun.capture(false, 2, "cosim", "dsp", "--kernel", "exp", "--inputs", "model").contains("--inputs model"));
    assertTrue(CliRun.capture(false, 2, "cosim", "dsp", "--kernel", "softmax", "--inputs", "trace").contains("random, model"));
    assertTrue(CliRun.capture(false, 2, "cosim", "dsp", "--kernel", "softmax", "--inputs", "model", "--layer", "9")
        .contains("--layer"));
  }

  @Test
  void badKernelExitsWithTwoAndOneLineNamingTheOptionAndTheAllowedValues() {
    String err = CliRun.capture(false, 2, "cosim", "dsp", "--kernel", "softmaxx");
    assertTrue(err.contains("--kernel") && err.contains("softmax, rmsnorm, layernorm"), err);
    assertEquals(1, err.strip().lines().count(), err);
  }

  @Test
  void badLanesAndOddRopeLengthExitWithTwo() {
    assertTrue(CliRun.capture(false, 2, "cosim", "dsp", "--kernel", "softmax", "--lanes", "6").contains("--lanes"));
    String stages = CliRun.capture(false, 2, "cosim", "dsp", "--kernel", "softmax", "--stages", "5");
    assertTrue(stages.contains("--stages") && stages.contains("1, 2, 3, 4"), stages);
    assertTrue(CliRun.capture(false, 2, "cosim", "dsp", "--kernel", "rope", "--len", "7").contains("--len"));
    String tooLong = CliRun.capture(false, 2, "cosim", "dsp", "--kernel", "layernorm", "--len", "65536", "--lanes", "1");
    assertTrue(tooLong.contains("--len") && tooLong.contains("262144 buffer rows (at most 65536)"), tooLong);
  }
}
