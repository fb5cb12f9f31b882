package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelWeights;

/**
 * The lowering on an NPU that keeps its X buffer ({@code MachineParams.xKeep}): every N tile after the first of the same
 * X is a {@code gemm xKeep=1} ({@link LoweringLayout#keepsX}), on stories260K (W1/W3, the LM head: more than one
 * {@code maxN} tile), golden ISA simulator: the logits are bit for bit the copying NPU's, the X lines are not read
 * again, the program takes no more cycles, and the cost model (the lowering's command stream and the extrapolated walk)
 * equals the golden counters. W3's first tile keeps the X of W1's last (through the PPM, with and without the SwiGLU
 * gate: {@code gate} true).
 */
class XKeepLoweringTest {
  private static final int[] PROMPT = FusedLoweringTest.PROMPT;

  @ParameterizedTest
  @CsvSource({"int8, FULL, false", "int4, FULL, false", "s2_4, FULL, false", "int8, NONE, false",
      "s2_4, VERTICAL, false", "int8, FULL, true", "s2_4, FULL, true"})
  void laterNTilesKeepXWithTheSameLogitsAndTheCostModelFollows(String format, Fusion fusion, boolean gate)
      throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    int layers = w.config().layers();
    MachineParams copying = FusedLoweringTest.machine(format).withPpmGate(gate);
    MachineParams keeping = copying.withXKeep(true);
    NpuDecoder copy = new NpuDecoder(WeightFormats.lower(w, format, copying, 24, 16), 6, NpuEngine.GOLDEN, fusion);
    LoweredModel kept = WeightFormats.lower(w, format, keeping, 24, 16);
    NpuDecoder keep = new NpuDecoder(kept, 6, NpuEngine.GOLDEN, fusion);
    NpuDecoder.Step p0 = copy.prefill(PROMPT, false);
    NpuDecoder.Step p1 = keep.prefill(PROMPT, false);
    NpuDecoder.Step d0 = copy.decode(301);
    NpuDecoder.Step d1 = keep.decode(301);
    for (int t = 0; t < p0.logits().length; t++) {
      assertArrayEquals(p0.logits()[t], p1.logits()[t], "prefill logits of token " + t);
    }
    assertArrayEquals(d0.logits()[0], d1.logits()[0], "decode logits");
    assertTrue(p1.counter(Counter.SPAD_READS) < p0.counter(Counter.SPAD_READS), "X lines not read again");
    assertTrue(p1.counter(Counter.CYCLES) <= p0.counter(Counter.CYCLES), p1.counter(Counter.CYCLES) + " vs "
        + p0.counter(Counter.CYCLES));
    assertTrue(d1.counter(Counter.CYCLES) <= d0.counter(Counter.CYCLES));
    System.out.printf("%s %s%s xKeep: prefill %d -> %d cycles, decode %d -> %d%n", format, fusion,
        gate ? " gate" : "",
        p0.counter(Counter.CYCLES), p1.counter(Counter.CYCLES), d0.counter(Counter.CYCLES), d1.counter(Counter.CYCLES));
    PhaseCostModel cost = PhaseCostModel.forFormat(w.config(), keeping, 24, 6, format, fusion);
    PhaseCostModelTest.assertEveryCounterEqual(p1, cost.step(PROMPT.length, 0, layers));
    PhaseCostModelTest.assertEveryCounterEqual(d1, cost.step(1, PROMPT.length, layers));
  }

  /** The extrapolated walk (7B estimates) keeps X where the lowering does: every counter equal on stories260K. */
  @ParameterizedTest
  @CsvSource({"8, 0, 16, 0, FULL, false", "8, 0, 1, 16, FULL, false", "4, 0, 16, 0, FULL, false",
      "8, 1, 16, 0, FULL, false", "4, 0, 1, 16, FULL, false", "8, 0, 16, 0, FULL, true", "8, 1, 16, 0, FULL, true"})
  void theExtrapolatedWalkKeepsXWhereTheLoweringDoes(int bits, int sparsity, int tokens, int position, Fusion fusion,
                                                     boolean gate) throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams m = (sparsity == Command.S2_4 ? NpuTargets.sparse24() : NpuTargets.defaultNpu()).withXKeep(true)
        .withPpmGate(gate);
    PhaseCostModel exact = new PhaseCostModel(w.config(), m, 18, 16, false, bits, 0, sparsity, -1, fusion);
    PhaseCostModel walk = new PhaseCostModel(w.config(), m, 18, 16, true, bits, 0, sparsity, -1, fusion);
    assertEquals(exact.step(tokens, position, 5), walk.step(tokens, position, 5));
  }
}
