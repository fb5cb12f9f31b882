package org.llmnpu.cli.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.cli.CliRun;
import org.llmnpu.cosim.report.NpuReportPipeline;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.tools.ExternalTool;
import org.llmnpu.reports.ppa.BlockDesigns;
import org.llmnpu.reports.ppa.CachedTiming;
import org.llmnpu.reports.ppa.ContentCache;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.reports.ppa.TimingResult;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * {@code npu cosim decoder} on the golden ISA simulator: JSON fields, text, the clock of TTFT/TPOT (given, this NPU's
 * cached Fmax, or a stated assumption), bad parameters.
 */
class CosimDecoderCommandTest {
  @TempDir
  Path cache;

  /** Runs the command with the PPA cache at {@code cache}. */
  private String withCache(String... args) {
    String previous = System.getProperty("llmnpu.ppa.cache");
    System.setProperty("llmnpu.ppa.cache", cache.toString());
    try {
      return CliRun.capture(true, 0, args);
    } finally {
      if (previous == null) {
        System.clearProperty("llmnpu.ppa.cache");
      } else {
        System.setProperty("llmnpu.ppa.cache", previous);
      }
    }
  }

  private static void requirePpaTools() {
    boolean present = ExternalTool.find("yosys").isPresent() && ExternalTool.find("sta").isPresent();
    if (!present && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("CI needs yosys and sta");
    }
    assumeTrue(present, "yosys/sta not installed (they key the PPA cache)");
  }

  @Test
  void ttftIsAtThisNpusFmaxWhenItsPpaResultIsCached() throws Exception {
    requirePpaTools();
    // the default NPU's timing at the target clock, as './npu report ppa npu --clock-ns 5.75' leaves it
    VerilogDesign design = BlockDesigns.of(BlockRegistry.find("npu"))
        .design(NpuReportPipeline.generatorParams(NpuConfig.defaults()));
    CachedTiming.put(design, PpaOptions.defaults().withCache(new ContentCache(cache)).withClockNs(5.75),
        new TimingResult(5.75, "clk", "register a", "register b", 30, 8, -2.25, 8, 125.0));
    String text = withCache("cosim", "decoder", "--prompt-len", "2", "--max-new", "2");
    assertTrue(text.contains("  at 125.0 MHz (this NPU's Fmax: cached PPA result at 5.75 ns): TTFT "), text);
    JsonNode j = new ObjectMapper().readTree(withCache("cosim", "decoder", "--prompt-len", "2", "--max-new", "2",
        "--json"));
    assertEquals(125.0, j.get("clockMhz").asDouble(), 1e-12);
    assertEquals("ppa-cache", j.get("clockSource").asText());
    assertEquals(j.get("modelCycles").get("prefill").asLong() / 125.0 / 1000, j.get("ttftMs").asDouble(), 1e-12);
  }

  @Test
  void withoutACachedPpaResultTheClockIsStatedAsAssumed() throws Exception {
    requirePpaTools();
    String text = withCache("cosim", "decoder", "--prompt-len", "2", "--max-new", "2", "--config",
        writeConfig("dspStages: 3\n").toString());
    assertTrue(text.contains("  at 173.9 MHz (assumed: no PPA result cached for this NPU; run ./npu report ppa npu "
        + "-p dspStages=3 --clock-ns 5.75 -o DIR): TTFT "), text);
    JsonNode j = new ObjectMapper().readTree(withCache("cosim", "decoder", "--prompt-len", "2", "--max-new", "2",
        "--json"));
    assertEquals("assumed", j.get("clockSource").asText());
    assertEquals(173.9, j.get("clockMhz").asDouble(), 1e-12);
  }

  @Test
  void anExplicitClockWins() throws Exception {
    JsonNode j = new ObjectMapper().readTree(CliRun.capture(true, 0, "cosim", "decoder", "--prompt-len", "2",
        "--max-new", "2", "--clock-mhz", "200", "--json"));
    assertEquals(200.0, j.get("clockMhz").asDouble(), 1e-12);
    assertEquals("given", j.get("clockSource").asText());
    String text = CliRun.capture(true, 0, "cosim", "decoder", "--prompt-len", "2", "--max-new", "2", "--clock-mhz",
        "200");
    assertTrue(text.contains("  at 200.0 MHz (--clock-mhz): TTFT "), text);
    String err = CliRun.capture(false, 2, "cosim", "decoder", "--clock-mhz", "0");
    assertTrue(err.startsWith("--clock-mhz must be in (0, 1e6)"), err);
  }

  private Path writeConfig(String yaml) throws Exception {
    Path c = cache.resolveSibling(cache.getFileName() + "-npu.yaml");
    java.nio.file.Files.writeString(c, yaml);
    return c;
  }

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
  void fusionStreamsTheWeightsAndFallsBackWhereTheNpuCannotSayingWhy() throws Exception {
    // int4-g32: at vertical the group-scaled INT4 stream (one GEMM a K chunk, gemm wInt4=2), not a GEMM per group;
    // no PPM epilogue (grouped K)
    String none = CliRun.capture(true, 0, "cosim", "decoder", "--prompt-len", "2", "--max-new", "2", "--quant",
        "int4-g32", "--fusion", "none", "--json");
    String fused = CliRun.capture(true, 0, "cosim", "decoder", "--prompt-len", "2", "--max-new", "2", "--quant",
        "int4-g32", "--fusion", "vertical", "--json");
    JsonNode n = new ObjectMapper().readTree(none);
    JsonNode f = new ObjectMapper().readTree(fused);
    assertEquals("vertical", f.get("fusion").asText(), fused);
    assertTrue(f.get("modelCycles").get("decode").asLong() < 0.8 * n.get("modelCycles").get("decode").asLong(), fused);
    assertEquals("vertical", f.get("fusionApplied").asText(), fused);
    assertTrue(f.get("fusionNotApplied").get(0).asText().startsWith("feed-forward epilogue on the PPM: grouped"), fused);
    // mxfp8 at the default level: the stream cannot decode MX, so the program is none's and the output says why
    JsonNode mx = new ObjectMapper().readTree(CliRun.capture(true, 0, "cosim", "decoder", "--prompt-len", "2",
        "--max-new", "2", "--quant", "mxfp8", "--json"));
    assertEquals("full", mx.get("fusion").asText());
    assertEquals("none", mx.get("fusionApplied").asText());
    assertTrue(mx.get("fusionNotApplied").get(0).asText().contains("MX element decoding on the weight stream"),
        mx.toString());
    String text = CliRun.capture(true, 0, "cosim", "decoder", "--prompt-len", "2", "--max-new", "2", "--quant", "mxfp8");
    assertTrue(text.contains("--fusion full, run as none; not applied: streamed weights"), text);
    String err = CliRun.capture(false, 2, "cosim", "decoder", "--fusion", "horizontal");
    assertTrue(err.contains("--fusion: 'horizontal' is not allowed; allowed: none, vertical, full"), err);
  }

  /**
   * {@code --qkv-scales static}: the run with calibrated per-tensor q/k/v scales (its accuracy against FP32 is the
   * user's check of them); refused where the PPM epilogues' scales do not apply and with speculative decoding.
   */
  @Test
  void staticQkvScalesRunWhereThePpmEpiloguesApplyAndAreRefusedElse() throws Exception {
    JsonNode j = new ObjectMapper().readTree(CliRun.capture(true, 0, "cosim", "decoder", "--prompt-len", "4",
        "--max-new", "2", "--qkv-scales", "static", "--json"));
    assertEquals("static", j.get("qkvScales").asText());
    JsonNode d = new ObjectMapper().readTree(CliRun.capture(true, 0, "cosim", "decoder", "--prompt-len", "4",
        "--max-new", "2", "--json"));
    assertEquals("dynamic", d.get("qkvScales").asText());
    assertTrue(j.get("klDivergence").asDouble() != d.get("klDivergence").asDouble(), "other q/k/v codes");
    String text = CliRun.capture(true, 0, "cosim", "decoder", "--prompt-len", "2", "--max-new", "2", "--qkv-scales",
        "static");
    assertTrue(text.contains("  q/k/v scales: static (calibrated"), text);
    String none = CliRun.capture(false, 2, "cosim", "decoder", "--fusion", "none", "--qkv-scales", "static");
    assertTrue(none.contains("--qkv-scales static") && none.contains("PPM epilogues"), none);
    assertTrue(CliRun.capture(false, 2, "cosim", "decoder", "--qkv-scales", "fixed").contains("--qkv-scales"));
    assertTrue(CliRun.capture(false, 2, "cosim", "decoder", "--qkv-scales", "static", "--speculative",
        "draft=layers1,gamma=2").contains("speculative"));
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
    String model = CliRun.capture(false, 2, "cosim", "decoder", "--model", "nosuch");
    assertTrue(model.contains("--model: ") && model.contains("stories260K, tiny, medium") && model.contains("'nosuch'"),
        model);
  }
}
