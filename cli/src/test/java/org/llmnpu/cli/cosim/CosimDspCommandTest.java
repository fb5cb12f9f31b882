package org.llmnpu.cli.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.llmnpu.cli.CliRun;
import org.llmnpu.hdl.tools.ExternalTool;

/**
 * {@code npu cosim dsp}: kernels on the RTL are bit-exact, within their stated ULP bound of double
 * precision, and take the formula's cycles; bad options exit 2 with one line naming the option
 * and the allowed values.
 */
class CosimDspCommandTest {

  @ParameterizedTest(name = "{0} len {1} lanes {2} stages {3}")
  // two kernels and lane counts: the command's path (sizing, build, run, compare, formula); every kernel at 1, 8
  // and 16 lanes is checked against the golden in npu-rtl's VectorDspTest; the default 4 execute stages (interleaved,
  // a tail of rows past the last group) and the one-stage DSP
  @CsvSource({"softmax, 128, 8, 4", "rope, 64, 4, 4", "rmsnorm, 72, 8, 4", "silu, 40, 8, 1"})
  void kernelIsBitExactWithinItsBoundAndTakesTheFormulaCycles(String kernel, String len, String lanes, String stages)
      throws Exception {
    boolean verilator = ExternalTool.find("verilator").isPresent();
    if (!verilator && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("CI needs verilator");
    }
    assumeTrue(verilator, "verilator not installed");
    String out = CliRun.capture(true, 0, "cosim", "dsp", "--kernel", kernel, "--len", len, "--lanes", lanes,
        "--stages", stages, "--json");
    JsonNode j = new ObjectMapper().readTree(out);
    assertEquals(Integer.parseInt(stages), j.get("executeStages").asInt(), out);
    assertTrue(j.get("bitExact").asBoolean(), out);
    assertEquals(j.get("formulaCycles").asLong(), j.get("rtlCycles").asLong(), out);
    assertTrue(j.get("maxUlpErrorVsDouble").asDouble() <= j.get("ulpBound").asDouble(), out);
    assertTrue(j.get("maxUlpErrorVsDouble").asDouble() > 0, "a real comparison: " + out);
  }

  @Test
  void modelActivationsDriveTheDspAndAreComparedWithTheSoftwareStack() throws Exception {
    boolean verilator = ExternalTool.find("verilator").isPresent();
    if (!verilator && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("CI needs verilator");
    }
    assumeTrue(verilator, "verilator not installed");
    String out = CliRun.capture(true, 0, "cosim", "dsp", "--kernel", "softmax", "--inputs", "model", "--prompt-len", "40",
        "--json");
    JsonNode j = new ObjectMapper().readTree(out);
    assertTrue(j.get("bitExact").asBoolean(), out);
    assertEquals(40, j.get("len").asInt(), "softmax over the 40 positions: " + out);
    assertTrue(j.get("recorded").asText().contains("attention scores of head 0"), out);
    assertTrue(j.get("recorded").asText().contains("stories260K model (trained weights)"), "the default is the real model: " + out);
    double versusSoftware = j.get("maxUlpErrorVsSoftwareFp32").asDouble();
    assertTrue(versusSoftware > 0 && versusSoftware < 32, out);
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
