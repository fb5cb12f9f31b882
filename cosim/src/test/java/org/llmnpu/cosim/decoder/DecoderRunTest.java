package org.llmnpu.cosim.decoder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.isa.Counter;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.sw.lower.NpuTargets;
import org.llmnpu.verilator.SimOptions;
import org.llmnpu.verilator.SimOptions.Mode;
import org.llmnpu.verilator.SimOptions.Waves;

/** The decoder on the golden ISA simulator (no RTL). */
class DecoderRunTest {
  @Test
  void theSoftwareStacksTargetIsTheDefaultNpu() {
    assertEquals(NpuConfig.defaults().machine(), NpuTargets.defaultNpu());
  }

  /**
   * The INT8 integer path (INT8 weights per channel and INT8 activations on the array, FP16 on the
   * DSP) is not FP32 and need not generate FP32's greedy tokens: at this seed its very first token
   * already differs from FP32's (a near-tie), and from there the two sequences differ. What the
   * design promises is agreement with the FP32 logits, measured along the integer path's own tokens
   * (FP32 fed the same tokens): top-1 agreement at least 0.75 — at most one of the four generated
   * positions picks another argmax — and mean KL(FP32 ‖ INT8) below 0.05 nats, the budget the
   * sw-stack's lowering tests hold this model to (0.042 here).
   */
  @Test
  void int8DecoderOnTheGoldenSimulatorAgreesWithFp32LogitsWithinItsBudget() throws Exception {
    DecoderRun.Result r = DecoderRun.run(new DecoderRun.Options("stories260K", 8, 4, "int8", DecoderRun.Engine.GOLDEN, 7),
        SimOptions.fromEnvironment());
    assertEquals(8, r.prompt().length);
    assertEquals(4, r.tokens().length);
    assertEquals(4, r.fp32Tokens().length);
    assertEquals(4, r.steps().size());
    assertEquals("prefill", r.steps().get(0).phase());
    assertTrue(r.steps().stream().allMatch(s -> s.rtlCycles() == -1 && s.rtlSeconds() == 0), "the golden engine runs no RTL");
    assertEquals(4, r.accuracy().positions());
    assertTrue(r.accuracy().top1Agreement() >= 0.75, "top-1 " + r.accuracy().top1Agreement());
    assertTrue(r.accuracy().klDivergence() < 0.05, "KL " + r.accuracy().klDivergence() + " nats");
    assertTrue(r.total("decode", Counter.CYCLES) > 0);
    assertEquals(r.total(null, Counter.MACS), r.total("prefill", Counter.MACS) + r.total("decode", Counter.MACS));
  }

  @Test
  void s24RunsSparseGemmsOnA24ArrayAndTheRtlMustHaveOne() throws Exception {
    DecoderRun.Result r = DecoderRun.run(new DecoderRun.Options("stories260K", 4, 2, "s2_4", DecoderRun.Engine.GOLDEN, 7),
        SimOptions.fromEnvironment());
    assertEquals(org.llmnpu.isa.Command.S2_4, r.machine().sparsity());
    assertTrue(r.total(null, Counter.MACS) < 0.75 * r.total(null, Counter.DENSE_MACS));
    String msg = assertThrows(IllegalArgumentException.class,
        () -> DecoderRun.target("s2_4", NpuConfig.defaults().machine(), true)).getMessage();
    assertTrue(msg.contains("sparsity") && msg.contains("dense"), msg);
    assertEquals(NpuTargets.sparse24(), DecoderRun.target("s2_4", NpuConfig.defaults().machine(), false));
    assertEquals(NpuTargets.sparse24(), DecoderRun.target("s2_4", NpuTargets.sparse24(), true));
  }

  @Test
  void speculativeDecodingOnTheGoldenEqualsTargetOnlyGreedy() throws Exception {
    DecoderRun.Result r = DecoderRun.run(new DecoderRun.Options("stories260K", 4, 6, "int8", DecoderRun.Engine.GOLDEN, 7,
        2, 3), SimOptions.fromEnvironment());
    DecoderRun.Speculative sp = r.speculative().orElseThrow();
    assertArrayEquals(r.tokens(), sp.tokens());
    assertArrayEquals(sp.goldenTokens(), sp.tokens());
    assertTrue(sp.equalsTargetOnly() && sp.bitExact());
    assertEquals(sp.targetPasses(), sp.steps().stream().filter(s -> s.phase().equals("target verify")).count());
    assertTrue(sp.accepted() <= sp.drafted() && sp.drafted() <= (long) sp.gamma() * sp.targetPasses());
    assertEquals(sp.decodeModelCycles() / 5.0, sp.cyclesPerToken(), 1e-9);
    assertEquals(r.total("decode", Counter.CYCLES) / 5.0, sp.targetOnlyCyclesPerToken(), 1e-9);
    assertEquals(sp.targetOnlyCyclesPerToken() / sp.cyclesPerToken(), sp.speedup(), 1e-12);
    assertTrue(Double.isNaN(sp.rtlCyclesPerToken()));
    assertEquals(r.steps().get(0).counter(Counter.CYCLES), sp.modelCycles("target prefill"));
  }

  /**
   * A prompt longer than the engine's maxM (64) is prefilled in chunks of 64 tokens, one program each; with the
   * weights streamed and the feed-forward's epilogues on the PPM ({@code --fusion vertical}: static calibrated scales,
   * so not bit for bit the unfused logits) the run stays close to FP32, in fewer cycles, with the same MACs.
   */
  @Test
  void aPromptBeyondMaxMIsPrefilledInChunksAndStreamedWeightsKeepTheTokens() throws Exception {
    DecoderRun.Result none = DecoderRun.run(new DecoderRun.Options("stories260K", 70, 2, "int8",
        DecoderRun.Engine.GOLDEN, 7, 0, 0, "none"), SimOptions.fromEnvironment());
    DecoderRun.Result fused = DecoderRun.run(new DecoderRun.Options("stories260K", 70, 2, "int8",
        DecoderRun.Engine.GOLDEN, 7, 0, 0, "vertical"), SimOptions.fromEnvironment());
    assertEquals(70, none.prompt().length);
    assertEquals(70, none.steps().get(0).tokens());
    assertEquals(none.tokens().length, fused.tokens().length);
    assertTrue(none.accuracy().klDivergence() < 0.1, "KL " + none.accuracy().klDivergence());
    // two generated positions only (the held-out figure is FusionAccuracyBench's: 0.14 nats at vertical)
    assertTrue(fused.accuracy().klDivergence() < 0.5, "KL " + fused.accuracy().klDivergence());
    assertTrue(fused.total("decode", Counter.CYCLES) < none.total("decode", Counter.CYCLES));
    assertEquals(none.total(null, Counter.MACS), fused.total(null, Counter.MACS));
  }

  @Test
  void badOptionsNameTheParameter() {
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> new DecoderRun.Options("stories260K", 4, 1, "int8", DecoderRun.Engine.GOLDEN, 1, 2, 3)).getMessage()
        .startsWith("max-new must be at least 2 with speculative"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> DecoderRun.run(new DecoderRun.Options("stories260K", 4, 4, "int8", DecoderRun.Engine.GOLDEN, 1, 9, 3),
            SimOptions.fromEnvironment())).getMessage().contains("draft=layers1..layers5"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> new DecoderRun.Options("stories260K", 0, 4, "int8", DecoderRun.Engine.GOLDEN, 1)).getMessage()
        .startsWith("prompt-len"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> new DecoderRun.Options("stories260K", 4, 4, "fp4", DecoderRun.Engine.GOLDEN, 1)).getMessage()
        .matches("quant must be one of .*int4-g32, s2_4.*"));
  }

  /**
   * An RTL run of a model the lowering refuses fails with the lowering's message before the NPU is built (a build of
   * this NPU, edge-64's structure with a 64-lane DSP, takes about 11 minutes on a loaded machine): here 2 MiB of
   * external memory, which the 2 MiB command area alone fills. The simulation options point the model cache at a
   * file, so a build that started anyway would fail with another error instead of the lowering's.
   */
  @Test
  void anRtlRunRefusesAModelTheLoweringRefusesBeforeBuildingTheNpu(@TempDir Path dir) throws Exception {
    NpuConfig edge64Shaped = NpuConfig.builder().rows(64).spadKiB(256).spadBanks(16).extMemMiB(2).mTile(16)
        .memory(100, 64).watchdogCycles(1 << 20).dspLanes(64).dspRows(256).dspProgramDepth(512).dspStages(4)
        .engine("systolic").weightRowsPerCycle(1).ppu(true).build();
    Path notADirectory = Files.createFile(dir.resolve("not-a-directory"));
    SimOptions noBuild = new SimOptions(Mode.LOCAL, Waves.NONE, Duration.ofSeconds(10), notADirectory,
        SimOptions.DEFAULT_IMAGE, notADirectory);
    IllegalArgumentException e = assertTimeoutPreemptively(Duration.ofMinutes(2), () -> assertThrows(
        IllegalArgumentException.class, () -> DecoderRun.run(new DecoderRun.Options("stories260K", 4, 2, "int8",
            DecoderRun.Engine.RTL, 3, 0, 0, "full"), edge64Shaped, noBuild)));
    assertTrue(e.getMessage().contains("bytes of external memory but the NPU has 2097152"), e.getMessage());
  }
}
