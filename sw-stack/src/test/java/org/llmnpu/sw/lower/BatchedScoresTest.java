package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelWeights;

/**
 * At {@code --fusion full} the attention scores of a batch are one GEMM per KV head ({@link BatchedAttention}'s
 * batched scores, stories260K: GQA, head-major K windows, query halves narrower than the DSP's rows) where the
 * scratchpad holds their regions, per-query GEMVs where it does not; either way the logits are {@code --fusion vertical}'s
 * (per-query GEMVs, the same PPM epilogues) bit for bit and {@link PhaseCostModel} equals the golden counters.
 */
class BatchedScoresTest {
  @ParameterizedTest
  @CsvSource({"40, 48, 16, int8, true", "17, 24, 16, int8, true", "20, 64, 16, int4-g32, true",
      "6, 512, 6, int8, true", "5, 24, 1, int8, false"})
  void batchedWhereTheRegionsFitWithTheUnfusedLogits(int promptLen, int context, int block, String format,
                                                     boolean batched) throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams m = NpuTargets.defaultNpu();
    LoweredModel model = WeightFormats.lower(w, format, m, context, promptLen);
    LoweringLayout layout = new LoweringLayout(model, block, true);
    assertEquals(batched, new BatchedAttention(new LoweringEmitter(layout, p -> model.dspPool, Fusion.FULL))
        .scores != null, "batched scores at context " + context);
    int[] prompt = new int[promptLen];
    for (int i = 0; i < promptLen; i++) {
      prompt[i] = (29 * i + 5) % w.config().vocabSize();
    }
    NpuDecoder none = new NpuDecoder(model, block, NpuEngine.GOLDEN, Fusion.VERTICAL);
    NpuDecoder full = new NpuDecoder(model, block, NpuEngine.GOLDEN, Fusion.FULL);
    NpuDecoder.Step p0 = none.prefill(prompt, false);
    NpuDecoder.Step p1 = full.prefill(prompt, false);
    assertArrayEquals(p0.logits()[0], p1.logits()[0], "prefill logits");
    assertArrayEquals(none.decode(301).logits()[0], full.decode(301).logits()[0], "decode logits");
    PhaseCostModel cost = PhaseCostModel.forFormat(w.config(), m, context, block, format, Fusion.FULL);
    PhaseCostModelTest.assertEveryCounterEqual(p1, cost.step(promptLen, 0, w.config().layers()));
    System.out.printf("stories260K %s prompt %d context %d block %d: prefill vertical %,d full %,d cycles (batched "
        + "scores %b)%n", format, promptLen, context, block, p0.counter(Counter.CYCLES), p1.counter(Counter.CYCLES),
        batched);
  }
}
