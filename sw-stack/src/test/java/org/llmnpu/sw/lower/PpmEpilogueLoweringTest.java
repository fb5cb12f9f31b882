package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.numerics.ppu.PpuEvaluator;
import org.llmnpu.numerics.ppu.PpuTable;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Ops;

/**
 * The fused feed-forward through the PPM ({@link PpmEpilogues}) on stories260K, golden ISA simulator: the program
 * runs, uses the PPM ({@code ppmElements}), takes fewer cycles than the unfused one, follows the unfused logits closely
 * (static instead of dynamic scales: not bit-exact), and the cost model's counters equal the golden's.
 */
class PpmEpilogueLoweringTest {
  private static final int[] PROMPT = FusedLoweringTest.PROMPT;

  @ParameterizedTest
  @CsvSource({"int8, vertical", "int8, full", "int4, full", "s2_4, vertical", "s2_4, full"})
  void theFeedForwardRunsThroughThePpmAndTheCostModelFollows(String format, String level) throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams m = FusedLoweringTest.machine(format);
    Fusion fusion = Fusion.parse(level);
    NpuDecoder.Step[] steps = FusedLoweringTest.prefillAndDecode(w, format, fusion);
    NpuDecoder.Step p0 = steps[0];
    NpuDecoder.Step p1 = steps[1];
    NpuDecoder.Step d0 = steps[2];
    NpuDecoder.Step d1 = steps[3];
    assertEquals(5L * 172 * PROMPT.length, p1.counter(Counter.PPM_ELEMENTS), "the gate of every layer (up as INT32)");
    assertEquals(0, p0.counter(Counter.PPM_ELEMENTS));
    assertTrue(p1.counter(Counter.CYCLES) < p0.counter(Counter.CYCLES));
    assertTrue(d1.counter(Counter.CYCLES) < d0.counter(Counter.CYCLES));
    assertClose(p0.logits()[0], p1.logits()[0]);
    assertClose(d0.logits()[0], d1.logits()[0]);
    PhaseCostModel cost = PhaseCostModel.forFormat(w.config(), m, 24, 6, format, fusion);
    PhaseCostModelTest.assertEveryCounterEqual(p1, cost.step(PROMPT.length, 0, w.config().layers()));
    PhaseCostModelTest.assertEveryCounterEqual(d1, cost.step(1, PROMPT.length, w.config().layers()));
  }

  /** The same top token, and logits within 0.3 of their spread (INT8 codes of SiLU(gate), static scales). */
  private static void assertClose(float[] ref, float[] got) {
    assertClose(ref, got, 0.3);
  }

  /** The same top token, and logits within {@code fraction} of their spread. */
  static void assertClose(float[] ref, float[] got, double fraction) {
    int a = Ops.argmax(ref);
    assertEquals(a, Ops.argmax(got), "top-1");
    float max = Float.NEGATIVE_INFINITY;
    float min = Float.POSITIVE_INFINITY;
    double diff = 0;
    for (int i = 0; i < ref.length; i++) {
      max = Math.max(max, ref[i]);
      min = Math.min(min, ref[i]);
      diff = Math.max(diff, Math.abs(ref[i] - got[i]));
    }
    assertTrue(diff < fraction * (max - min), "max |logit difference| " + diff + " of a spread " + (max - min));
  }

  /**
   * The hand-written walk that estimates models the lowering cannot lay out (7B-class) has the same feed-forward
   * epilogue: on stories260K at {@code vertical} (head dimension below the line, so the walk's layout is the
   * lowering's) every counter equals the lowering's command stream, INT8, INT4 and 2:4 (on the 2:4 array).
   */
  @ParameterizedTest
  @CsvSource({"8, 0", "4, 0", "8, 1"})
  void theExtrapolatedWalkHasTheSameEpilogue(int bits, int sparsity) throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams m = sparsity == org.llmnpu.isa.Command.S2_4 ? NpuTargets.sparse24() : NpuTargets.defaultNpu();
    PhaseCostModel exact = new PhaseCostModel(w.config(), m, 18, 16, false, bits, 0, sparsity, -1, Fusion.VERTICAL);
    PhaseCostModel walk = new PhaseCostModel(w.config(), m, 18, 16, true, bits, 0, sparsity, -1, Fusion.VERTICAL);
    for (int[] s : new int[][] {{16, 0}, {1, 16}}) {
      PhaseCost e = exact.step(s[0], s[1], 5);
      assertTrue(e.counter(Counter.PPM_ELEMENTS) > 0);
      assertEquals(e, walk.step(s[0], s[1], 5));
    }
  }

  /**
   * At {@code full} the walk joins consecutive DSP runs as the lowering's command stream does ({@link DspChain}): with a
   * prompt that is one batch of the batched attention (8 tokens), a 16-token prefill block (two batches: the program
   * residency across them) and a decode step, every counter equal, and fewer commands than at {@code vertical}.
   */
  @ParameterizedTest
  @CsvSource({"8, 0", "16, 0", "1, 16"})
  void theExtrapolatedWalkJoinsDspRunsAsTheLoweringDoes(int tokens, int position) throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams m = NpuTargets.defaultNpu();
    PhaseCostModel exact = new PhaseCostModel(w.config(), m, 18, 16, false, 8, 0, org.llmnpu.isa.Command.DENSE, -1,
        Fusion.FULL);
    PhaseCostModel walk = new PhaseCostModel(w.config(), m, 18, 16, true, 8, 0, org.llmnpu.isa.Command.DENSE, -1,
        Fusion.FULL);
    PhaseCostModel vertical = new PhaseCostModel(w.config(), m, 18, 16, false, 8, 0, org.llmnpu.isa.Command.DENSE, -1,
        Fusion.VERTICAL);
    PhaseCost e = exact.step(tokens, position, 5);
    assertEquals(e, walk.step(tokens, position, 5));
    assertTrue(e.counter(Counter.COMMANDS) < vertical.step(tokens, position, 5).counter(Counter.COMMANDS));
  }

  @Test
  void theIdentityTableGivesEveryCodeBackAndTheSiluTableFollowsSilu() {
    PpuTable id = PpmEpilogues.identityTable();
    for (int q = -128; q <= 127; q++) {
      assertEquals(q, PpuEvaluator.evaluate(id, q));
    }
    double sIn = 4.0 / 127;
    double sOut = 3.9 / 127;
    PpuTable silu = PpmEpilogues.siluTable(sIn, sOut);
    for (int q = -128; q <= 127; q++) {
      double x = q * sIn;
      double ideal = x / (1 + Math.exp(-x)) / sOut;
      assertEquals(Math.max(-128, Math.min(127, ideal)), PpuEvaluator.evaluate(silu, q), 1.01, "code " + q);
    }
  }
  /** The cache's text form gives back the calibrated scales exactly; an entry of the wrong shape is refused. */
  @Test
  void calibratedScalesRoundTripThroughTheCache() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    StaticScales s = StaticScales.calibrate(w);
    assertEquals(s.lines(), StaticScales.parse(s.lines(), w.config().layers()).lines());
    assertTrue(s.of(StaticScales.Site.GATE, 0) > 0 && s.lmIn() > 0);
    String bad = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> StaticScales.parse(java.util.List.of("0x1.0p0"), w.config().layers())).getMessage();
    assertTrue(bad.contains("expected 6 lines"), bad);
  }
}
