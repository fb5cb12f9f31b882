package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.eval.LogitComparison;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelWeights;

/**
 * The SwiGLU gate through the PPM ({@code gemm ppm=1 gate=1}, {@link FeedForwardLowering#gated}) on stories260K at
 * {@code --fusion full}, golden ISA simulator, on the default NPU with the PPM's gate operand: the up columns go through
 * the gated PPM (twice the PPM elements of the DSP path), no DSP SwiGLU runs, the program takes fewer cycles, the
 * logits follow the DSP path's (static W2 input scale: not bit-exact), and the cost model (the lowering's command
 * stream and the extrapolated walk) equals the golden counters.
 */
class GatedSwigluLoweringTest {
  private static final int[] PROMPT = FusedLoweringTest.PROMPT;
  private static final int HELD_OUT_SEQUENCES = 6;
  private static final int HELD_OUT_LENGTH = 32;
  private static final double INT4_KL_MARGIN = 0.15;
  private static final double INT4_TOP1_MARGIN = 0.05;

  private static MachineParams gated(String format) {
    return FusedLoweringTest.machine(format).withPpmGate(true);
  }

  @ParameterizedTest
  @CsvSource({"int8", "int4", "s2_4"})
  void theGateRunsThroughThePpmInFewerCyclesAndTheCostModelFollows(String format) throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    int layers = w.config().layers();
    int hidden = w.config().hiddenDim();
    NpuDecoder dspPath = new NpuDecoder(WeightFormats.lower(w, format, FusedLoweringTest.machine(format), 24, 16), 6,
        NpuEngine.GOLDEN, Fusion.FULL);
    NpuDecoder gatePath = new NpuDecoder(WeightFormats.lower(w, format, gated(format), 24, 16), 6, NpuEngine.GOLDEN,
        Fusion.FULL);
    NpuDecoder.Step p0 = dspPath.prefill(PROMPT, false);
    NpuDecoder.Step p1 = gatePath.prefill(PROMPT, false);
    NpuDecoder.Step d0 = dspPath.decode(301);
    NpuDecoder.Step d1 = gatePath.decode(301);
    assertEquals(2L * layers * hidden * PROMPT.length, p1.counter(Counter.PPM_ELEMENTS), "gate and up of every layer");
    assertEquals(layers * hidden * (long) PROMPT.length, p0.counter(Counter.PPM_ELEMENTS));
    assertTrue(p1.counter(Counter.CYCLES) < p0.counter(Counter.CYCLES), p1.counter(Counter.CYCLES) + " vs "
        + p0.counter(Counter.CYCLES));
    assertTrue(d1.counter(Counter.CYCLES) < d0.counter(Counter.CYCLES));
    assertTrue(p1.counter(Counter.DSP_ELEMENTS) < p0.counter(Counter.DSP_ELEMENTS));
    System.out.printf("%s full: prefill %d -> %d cycles, decode %d -> %d%n", format, p0.counter(Counter.CYCLES),
        p1.counter(Counter.CYCLES), d0.counter(Counter.CYCLES), d1.counter(Counter.CYCLES));
    if (format.equals("int8")) {  // INT4: theGatedInt4PathIsAsCloseToFp32AsTheDspPathOnHeldOutTokens
      PpmEpilogueLoweringTest.assertClose(p0.logits()[0], p1.logits()[0], 0.3);
      PpmEpilogueLoweringTest.assertClose(d0.logits()[0], d1.logits()[0], 0.3);
    }
    PhaseCostModel cost = PhaseCostModel.forFormat(w.config(), gated(format), 24, 6, format, Fusion.FULL);
    PhaseCostModelTest.assertEveryCounterEqual(p1, cost.step(PROMPT.length, 0, layers));
    PhaseCostModelTest.assertEveryCounterEqual(d1, cost.step(1, PROMPT.length, layers));
  }

  /**
   * INT4 (per channel, codes −7..7) on stories260K is far from FP32 (about 3.1 nats KL, top-1 ≈ 0.17 on held-out
   * tokens), so one prompt's top token is not a criterion: on {@link #PROMPT}'s last token both paths' KL to FP32 is
   * 4.7–6.5 nats and their top tokens (466 or 407, FP32's 306) change with any rounding of the attention. The gated
   * path is held to the DSP path's accuracy instead, paired on {@value #HELD_OUT_SEQUENCES} × {@value #HELD_OUT_LENGTH}
   * held-out tokens (sampled from the FP32 model, the benches' evaluation seed): its mean KL to FP32 within
   * {@value #INT4_KL_MARGIN} nats of the DSP path's (the paired per-sequence difference's SD is about 0.075 nats on
   * 32 × 64 tokens: the margin is about 5 standard errors of this test's mean), and its top-1 agreement with FP32 within
   * {@value #INT4_TOP1_MARGIN} of the DSP path's. It fails a gated path whose W2 input scale is a quarter of the
   * calibrated one (KL 2.96 → 3.70; at a half, 3.03, it passes).
   */
  @Test
  void theGatedInt4PathIsAsCloseToFp32AsTheDspPathOnHeldOutTokens() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    LogitComparison[] paths = new LogitComparison[2];
    for (int gate = 0; gate < 2; gate++) {
      paths[gate] = IntegerPathAccuracy.evaluate(w, "int4", FusedLoweringTest.machine("int4").withPpmGate(gate == 1),
          HELD_OUT_SEQUENCES, HELD_OUT_LENGTH, SampledSequences.EVALUATION_SEED, Fusion.FULL);
    }
    System.out.printf("int4 full, %d x %d held-out tokens: KL %.4f (DSP path) -> %.4f (gate), top-1 %.4f -> %.4f%n",
        HELD_OUT_SEQUENCES, HELD_OUT_LENGTH, paths[0].klDivergence(), paths[1].klDivergence(),
        paths[0].top1Agreement(), paths[1].top1Agreement());
    assertTrue(paths[1].klDivergence() <= paths[0].klDivergence() + INT4_KL_MARGIN, "gated KL "
        + paths[1].klDivergence() + " vs the DSP path's " + paths[0].klDivergence());
    assertTrue(paths[1].top1Agreement() >= paths[0].top1Agreement() - INT4_TOP1_MARGIN, "gated top-1 "
        + paths[1].top1Agreement() + " vs the DSP path's " + paths[0].top1Agreement());
  }

  /** The gated NPU's layout stores 8-bit weights with the W2 input smoothed; INT4 and the ungated NPU's as given. */
  @Test
  void theGatedLayoutSmoothsTheW2InputOfEightBitWeights() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    assertNotSame(w, WeightFormats.lower(w, "int8", gated("int8"), 24, 16).epilogues.stored(w));
    assertNotSame(w, WeightFormats.lower(w, "s2_4", gated("s2_4"), 24, 16).epilogues.stored(w));
    assertSame(w, WeightFormats.lower(w, "int4", gated("int4"), 24, 16).epilogues.stored(w));
    assertSame(w, WeightFormats.lower(w, "int8", FusedLoweringTest.machine("int8"), 24, 16).epilogues.stored(w));
  }

  /** The extrapolated walk (7B estimates) has the same gated feed-forward: every counter equal on stories260K. */
  @ParameterizedTest
  @CsvSource({"8, 0, 8, 0", "8, 0, 16, 0", "8, 0, 1, 16", "4, 0, 16, 0", "8, 1, 16, 0"})
  void theExtrapolatedWalkHasTheSameGatedFeedForward(int bits, int sparsity, int tokens, int position) {
    ModelWeights w;
    try {
      w = ModelCatalog.load("stories260K", 1);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    MachineParams m = (sparsity == org.llmnpu.isa.Command.S2_4 ? NpuTargets.sparse24() : NpuTargets.defaultNpu())
        .withPpmGate(true);
    PhaseCostModel exact = new PhaseCostModel(w.config(), m, 18, 16, false, bits, 0, sparsity, -1, Fusion.FULL);
    PhaseCostModel walk = new PhaseCostModel(w.config(), m, 18, 16, true, bits, 0, sparsity, -1, Fusion.FULL);
    PhaseCost e = exact.step(tokens, position, 5);
    assertEquals(2L * 5 * w.config().hiddenDim() * tokens, e.counter(Counter.PPM_ELEMENTS));
    assertEquals(e, walk.step(tokens, position, 5));
  }
}
