package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.eval.LogitComparison;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.SyntheticWeights;
import org.llmnpu.sw.model.Transformer;

/**
 * {@code s2_4}: block weights pruned 2:4 along K, INT8 per channel, compressed with metadata and run
 * by sparse GEMMs on an NPU whose array is built for 2:4. Golden ISA simulator.
 */
class SparseLoweringTest {
  private static final int[] PROMPT = {1, 403, 407, 261, 378};
  private static ModelWeights weights;

  @BeforeAll
  static void load() throws Exception {
    weights = ModelCatalog.load("stories260K", 1);
  }

  /** The 2:4 NPU with another maxK. */
  static MachineParams sparseWithMaxK(int maxK) {
    return KTilingTest.withMaxK(maxK).withUnits(0, false, Command.S2_4);
  }

  @Test
  void theNpuComputesThePrunedModelAndADecodeStepEqualsThePrefill() {
    LoweredModel s24 = WeightFormats.lower(weights, "s2_4", NpuTargets.sparse24(), 16, 16);
    NpuDecoder.Step whole = new NpuDecoder(s24, 16, NpuEngine.GOLDEN).prefill(PROMPT, true);
    NpuDecoder stepwise = new NpuDecoder(s24, 2, NpuEngine.GOLDEN);
    stepwise.prefill(java.util.Arrays.copyOf(PROMPT, PROMPT.length - 1), false);
    assertArrayEquals(whole.logits()[PROMPT.length - 1], stepwise.decode(PROMPT[PROMPT.length - 1]).logits()[0]);
    // the integer path is as close to the pruned FP32 model as int8 is to the dense one
    ModelWeights pruned = WeightFormats.prepare(weights, "s2_4");
    Transformer ref = new Transformer(pruned);
    LogitComparison c = LogitComparison.compare(ref.forwardAll(PROMPT, ref.newCache(16)), whole.logits());
    assertTrue(c.top1Agreement() >= 0.8 && c.klDivergence() < 0.1, c.toString());
    // dense-equivalent MACs as int8; executed MACs of the block GEMMs halved
    LoweredModel int8 = WeightFormats.lower(weights, "int8", NpuTargets.defaultNpu(), 16, 16);
    NpuDecoder.Step dense = new NpuDecoder(int8, 16, NpuEngine.GOLDEN).prefill(PROMPT, true);
    assertEquals(dense.counter(Counter.DENSE_MACS), whole.counter(Counter.DENSE_MACS));
    assertTrue(whole.counter(Counter.MACS) < 0.75 * dense.counter(Counter.MACS), whole.counter(Counter.MACS) + " vs "
        + dense.counter(Counter.MACS));
    // block weights: values half the dense bytes, metadata a quarter (two positions a byte, widened by load4)
    assertTrue(s24.weightBytes() < 0.8 * int8.weightBytes(), s24.weightBytes() + " vs " + int8.weightBytes());
    assertTrue(whole.counter(Counter.DMA_LOAD_BYTES) < dense.counter(Counter.DMA_LOAD_BYTES) - 0.2 * int8.weightBytes());
  }

  @Test
  void kChunksOfASparseWeightKeepTheResults() {
    LoweredModel tiled = WeightFormats.lower(weights, "s2_4", sparseWithMaxK(48), 16, 16);
    LoweredModel whole = WeightFormats.lower(weights, "s2_4", sparseWithMaxK(512), 16, 16);
    NpuDecoder.Step a = new NpuDecoder(tiled, 16, NpuEngine.GOLDEN).prefill(PROMPT, true);
    NpuDecoder.Step b = new NpuDecoder(whole, 16, NpuEngine.GOLDEN).prefill(PROMPT, true);
    assertEquals(b.counter(Counter.MACS), a.counter(Counter.MACS));
    assertTrue(a.commands() > b.commands());
    LogitComparison cmp = LogitComparison.compare(b.logits(), a.logits());
    assertTrue(cmp.top1Agreement() >= 0.8 && cmp.klDivergence() < 0.05, cmp.toString());
    NpuDecoder stepwise = new NpuDecoder(tiled, 2, NpuEngine.GOLDEN);
    stepwise.prefill(java.util.Arrays.copyOf(PROMPT, PROMPT.length - 1), false);
    assertArrayEquals(a.logits()[PROMPT.length - 1], stepwise.decode(PROMPT[PROMPT.length - 1]).logits()[0]);
  }

  @Test
  void aKThatIsNotAMultipleOfTheGroupEndsInARaggedGroup() {
    // hidden 170 = 42 groups of 4 and one of 2 (W2's K), chunks of 48 on maxK 48 (the last one 26)
    ModelConfig cfg = new ModelConfig(64, 170, 2, 8, 4, 512, 64);
    ModelWeights w = SyntheticWeights.generate(cfg, 3);
    for (MachineParams m : new MachineParams[] {sparseWithMaxK(512), sparseWithMaxK(48)}) {
      LoweredModel model = WeightFormats.lower(w, "s2_4", m, 16, 16);
      // 86 value rows of 64 bytes and 86 metadata rows packed to 32 bytes: 0.75 of dense 172 × 64
      assertEquals(86L * 64 + 86L * 32, model.matrixBytes(170, 64));
      NpuDecoder.Step s = new NpuDecoder(model, 16, NpuEngine.GOLDEN).prefill(PROMPT, true);
      Transformer ref = new Transformer(WeightFormats.prepare(w, "s2_4"));
      LogitComparison c = LogitComparison.compare(ref.forwardAll(PROMPT, ref.newCache(16)), s.logits());
      assertTrue(c.klDivergence() < 0.05, m.maxK() + ": " + c);
    }
  }

  @Test
  void aDenseNpuIsRefusedWithTheReason() {
    String msg = assertThrows(IllegalArgumentException.class,
        () -> WeightFormats.lower(weights, "s2_4", NpuTargets.defaultNpu(), 16, 16)).getMessage();
    assertTrue(msg.contains("built for 2:4") && msg.contains("sparse24"), msg);
    assertTrue(assertThrows(IllegalArgumentException.class, () -> WeightFormats.prepare(weights, "s3_4")).getMessage()
        .contains("s2_4"));
  }
}
