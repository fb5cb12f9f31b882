package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelWeights;

/**
 * The wide PPM ({@code MachineParams.ppmWide}: a fused GEMM drains one N tile of a row a cycle) under stories260K's
 * lowering at {@code --fusion full} with the SwiGLU gate, golden ISA simulator: the same logits bit for bit as the
 * narrow PPM (the same codes), the same PPM elements, fewer scratchpad writes and cycles; the cost model (the
 * lowering's command stream) and the extrapolated walk equal the golden counters.
 */
class WidePpmLoweringTest {
  private static final int[] PROMPT = FusedLoweringTest.PROMPT;

  private static MachineParams machine(String format, boolean wide) {
    return FusedLoweringTest.machine(format).withPpmGate(true).withPpmWide(wide);
  }

  @ParameterizedTest
  @CsvSource({"int8", "s2_4"})
  void sameLogitsFewerCyclesAndTheCostModelAndWalkFollow(String format) throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    int layers = w.config().layers();
    NpuDecoder narrow = new NpuDecoder(WeightFormats.lower(w, format, machine(format, false), 24, 16), 6,
        NpuEngine.GOLDEN, Fusion.FULL);
    NpuDecoder wide = new NpuDecoder(WeightFormats.lower(w, format, machine(format, true), 24, 16), 6,
        NpuEngine.GOLDEN, Fusion.FULL);
    NpuDecoder.Step p0 = narrow.prefill(PROMPT, false);
    NpuDecoder.Step p1 = wide.prefill(PROMPT, false);
    NpuDecoder.Step d0 = narrow.decode(301);
    NpuDecoder.Step d1 = wide.decode(301);
    for (NpuDecoder.Step[] s : new NpuDecoder.Step[][] {{p0, p1}, {d0, d1}}) {
      for (int t = 0; t < s[0].logits().length; t++) {
        assertArrayEquals(s[0].logits()[t], s[1].logits()[t], s[1].phase() + " token " + t);
      }
      assertEquals(s[0].counter(Counter.PPM_ELEMENTS), s[1].counter(Counter.PPM_ELEMENTS));
      assertTrue(s[1].counter(Counter.SPAD_WRITES) < s[0].counter(Counter.SPAD_WRITES));
      assertTrue(s[1].counter(Counter.CYCLES) < s[0].counter(Counter.CYCLES));
      System.out.printf("%s full, %s: %d -> %d cycles with the wide PPM%n", format, s[1].phase(),
          s[0].counter(Counter.CYCLES), s[1].counter(Counter.CYCLES));
    }
    PhaseCostModel cost = PhaseCostModel.forFormat(w.config(), machine(format, true), 24, 6, format, Fusion.FULL);
    PhaseCostModelTest.assertEveryCounterEqual(p1, cost.step(PROMPT.length, 0, layers));
    PhaseCostModelTest.assertEveryCounterEqual(d1, cost.step(1, PROMPT.length, layers));
  }

  /** The extrapolated walk (7B estimates) with the wide PPM: every counter equal to the lowering's cost on stories260K. */
  @ParameterizedTest
  @CsvSource({"8, 0, 16, 0", "8, 0, 1, 16", "8, 1, 16, 0"})
  void theExtrapolatedWalkFollows(int bits, int sparsity, int tokens, int position) throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams m = (sparsity == org.llmnpu.isa.Command.S2_4 ? NpuTargets.sparse24() : NpuTargets.defaultNpu())
        .withPpmGate(true).withPpmWide(true);
    PhaseCostModel exact = new PhaseCostModel(w.config(), m, 18, 16, false, bits, 0, sparsity, -1, Fusion.FULL);
    PhaseCostModel walk = new PhaseCostModel(w.config(), m, 18, 16, true, bits, 0, sparsity, -1, Fusion.FULL);
    PhaseCost e = exact.step(tokens, position, 5);
    PhaseCost narrow = new PhaseCostModel(w.config(), m.withPpmWide(false), 18, 16, false, bits, 0, sparsity, -1,
        Fusion.FULL).step(tokens, position, 5);
    assertTrue(e.cycles() < narrow.cycles(), e.cycles() + " vs " + narrow.cycles());
    assertEquals(e, walk.step(tokens, position, 5));
  }
}
