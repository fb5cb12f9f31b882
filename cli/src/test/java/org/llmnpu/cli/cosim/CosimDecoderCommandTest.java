package org.llmnpu.cli.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.llmnpu.cli.CliRun;

/** {@code npu cosim decoder} on the golden ISA simulator: JSON fields, text, bad parameters. */
class CosimDecoderCommandTest {
  @Test
  void jsonHasTokensCyclesCountersAndAccuracy() throws Exception {
    String out = CliRun.capture(true, 0, "cosim", "decoder", "--prompt-len", "4", "--max-new", "3", "--json");
    JsonNode j = new ObjectMapper().readTree(out);
    assertEquals(3, j.get("tokens").size(), out);
    assertEquals(4, j.get("prompt").size(), out);
    assertTrue(j.get("bitExact").isNull(), "no RTL: " + out);
    assertTrue(j.get("modelCycles").get("prefill").asLong() > 0, out);
    assertEquals(2, j.get("modelCycles").get("decodeSteps").asInt(), out);
    assertTrue(j.get("counters").get("decode").get("macs").asLong() > 0, out);
    double top1 = j.get("top1Agreement").asDouble();
    assertTrue(top1 >= 0 && top1 <= 1, out);
    assertTrue(j.get("ttftMs").asDouble() > 0, out);
  }

  @Test
  void s24RunsTheSparseGemmsOnTheGoldenSimulator() throws Exception {
    String out = CliRun.capture(true, 0, "cosim", "decoder", "--prompt-len", "2", "--max-new", "2", "--quant", "s2_4",
        "--json");
    JsonNode c = new ObjectMapper().readTree(out).get("counters").get("decode");
    assertTrue(c.get("macs").asLong() < 0.75 * c.get("denseMacs").asLong(), out);
  }

  @Test
  void textNamesThePhases() {
    String out = CliRun.capture(true, 0, "cosim", "decoder", "--prompt-len", "2", "--max-new", "2");
    assertTrue(out.contains("prefill") && out.contains("decode") && out.contains("TTFT"), out);
  }

  @Test
  void speculativeDecodingEqualsTargetOnly() throws Exception {
    String out = CliRun.capture(true, 0, "cosim", "decoder", "--prompt-len", "4", "--max-new", "5", "--speculative",
        "draft=layers4,gamma=2", "--json");
    JsonNode s = new ObjectMapper().readTree(out).get("speculative");
    assertTrue(s.get("equalsTargetOnly").asBoolean(), out);
    assertTrue(s.get("tokensPerPass").asDouble() >= 1, out);
    assertTrue(s.get("equalsGolden").asBoolean() && s.get("bitExact").isNull() && s.get("rtlCycles").isNull(), out);
    assertTrue(s.get("accepted").asLong() <= s.get("drafted").asLong(), out);
    assertEquals(s.get("accepted").asDouble() / s.get("drafted").asDouble(), s.get("acceptanceRate").asDouble(), 1e-12);
    assertEquals(s.get("targetOnlyCyclesPerToken").asDouble() / s.get("cyclesPerToken").asDouble(),
        s.get("speedup").asDouble(), 1e-12);
    assertTrue(s.get("modelCycles").get("verify").asLong() > 0 && s.get("steps").size() > 3, out);
  }

  @Test
  void speculativeTextShowsAcceptanceAndSpeedup() {
    String out = CliRun.capture(true, 0, "cosim", "decoder", "--prompt-len", "2", "--max-new", "3", "--speculative",
        "draft=layers1,gamma=2");
    assertTrue(out.contains("acceptance rate") && out.contains("cycles per accepted token") && out.contains("speedup"),
        out);
    assertTrue(CliRun.capture(false, 2, "cosim", "decoder", "--speculative", "draft=layers9,gamma=2")
        .contains("draft=layers1..layers5"));
  }

  @Test
  void badParametersExitWith2AndNameTheParameter() {
    assertTrue(CliRun.capture(false, 2, "cosim", "decoder", "--speculative", "gamma=2").contains("--speculative"));
    assertTrue(CliRun.capture(false, 2, "cosim", "decoder", "--engine", "fpga").contains("--engine"));
    String quant = CliRun.capture(false, 2, "cosim", "decoder", "--quant", "int3");
    assertTrue(quant.contains("--quant") && quant.contains("int4-g32, s2_4"), quant);
    assertTrue(CliRun.capture(false, 2, "cosim", "decoder", "--prompt-len", "0").contains("--prompt-len"));
    assertTrue(CliRun.capture(false, 2, "cosim", "decoder", "--model", "nosuch").toLowerCase().contains("model"));
  }
}
