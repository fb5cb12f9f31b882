package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelWeights;

/**
 * {@code int4-g32} at a fused level streams the group-scaled INT4 copies ({@code gemm wInt4=2},
 * {@link LoweredModel#groupScaledStream}) on stories260K, golden ISA simulator: one GEMM per K chunk instead of one
 * per group of 32, each result dequantized once per channel; fewer cycles than the unfused group GEMMs (stories260K's
 * K of 64 is only two groups), W's bytes only the multiplier rows (2 of every 34 rows) above the INT4 codes; logits close to the unfused
 * ones (the load path's 4.4-bit multipliers and INT8 rounding, not bit-exact); the cost model's counters equal the
 * golden's, and the extrapolated walk equals the lowering's command stream.
 */
class GroupScaledLoweringTest {
  private static final int[] PROMPT = FusedLoweringTest.PROMPT;

  @ParameterizedTest
  @CsvSource({"vertical", "full"})
  void groupScaledStreamsCutTheCommandsAndTheCostModelFollows(String level) throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams m = FusedLoweringTest.machine("int4-g32");
    Fusion fusion = Fusion.parse(level);
    NpuDecoder.Step[] steps = FusedLoweringTest.prefillAndDecode(w, "int4-g32", fusion);
    NpuDecoder.Step p0 = steps[0];
    NpuDecoder.Step p1 = steps[1];
    NpuDecoder.Step d0 = steps[2];
    NpuDecoder.Step d1 = steps[3];
    assertTrue(p1.counter(Counter.CYCLES) < 0.8 * p0.counter(Counter.CYCLES),
        p1.counter(Counter.CYCLES) + " vs " + p0.counter(Counter.CYCLES));
    assertTrue(d1.counter(Counter.CYCLES) < 0.8 * d0.counter(Counter.CYCLES),
        d1.counter(Counter.CYCLES) + " vs " + d0.counter(Counter.CYCLES));
    // at full the scores GEMVs cover their KV head's window of the head-major K rows only (about 2 % of the MACs)
    long tolerance = fusion == Fusion.FULL ? d0.counter(Counter.DENSE_MACS) / 40 : 1000;
    assertEquals(d0.counter(Counter.DENSE_MACS), d1.counter(Counter.DENSE_MACS), tolerance,
        "same GEMMs, not cut in groups");
    // the same top token, logits within 0.1 of their spread
    PpmEpilogueLoweringTest.assertClose(p0.logits()[0], p1.logits()[0], 0.1);
    PpmEpilogueLoweringTest.assertClose(d0.logits()[0], d1.logits()[0], 0.1);
    PhaseCostModel cost = PhaseCostModel.forFormat(w.config(), m, 24, 6, "int4-g32", fusion);
    PhaseCostModelTest.assertEveryCounterEqual(p1, cost.step(PROMPT.length, 0, w.config().layers()));
    PhaseCostModelTest.assertEveryCounterEqual(d1, cost.step(1, PROMPT.length, w.config().layers()));
    if (fusion == Fusion.VERTICAL) {
      PhaseCostModel exact = new PhaseCostModel(w.config(), m, 18, 16, false, 4, 32, 0, -1, fusion);
      PhaseCostModel walk = new PhaseCostModel(w.config(), m, 18, 16, true, 4, 32, 0, -1, fusion);
      for (int[] s : new int[][] {{16, 0}, {1, 16}}) {
        assertEquals(exact.step(s[0], s[1], 5), walk.step(s[0], s[1], 5));
      }
    }
  }
}
