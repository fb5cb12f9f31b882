package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.SyntheticWeights;

/**
 * Two staggered token blocks with the other block's GEMM stream woven into a block's attention ({@link TileWeave}):
 * the second block's QKV GEMM into the first's ({@link PrefillOrder.Weave#QKV}), or each block's gated W1/W3 GEMMs
 * into the other block's attention that follows ({@link PrefillOrder.Weave#GATED}, its residual and RMSNorm pairs and
 * W2 residuals pinned in the program memory; without the PPM gate the staggered order's). On the golden simulator the
 * program gives the logits of one block at a time bit for bit (prefill and the decode step after it) and the cost
 * model's counters are the golden's; the extrapolated walk equals the lowering's program on every counter (stories260K
 * and a GQA shape with a ragged hidden size; INT8, INT4, 2:4; with the PPM gate, static q/k/v scales, xKeep; layer by
 * layer and in windows across layers; with the tiled QKV post the QKV head is not woven, the staggered order's, while
 * the gated weave still applies).
 */
class WovenBlocksTest {
  private static MachineParams npu(String format, boolean gate, boolean xKeep, int maxN) {
    MachineParams m = BlockInterleaverTest.twoBlockNpu(format);
    m = maxN > 0 ? TiledQkvPostTest.withMaxN(m, maxN) : m;
    return m.withPpmGate(gate).withXKeep(xKeep);
  }

  private static PrefillOrder order(String weave, boolean acrossLayers) {
    return new PrefillOrder(true, true, false, true, acrossLayers, PrefillOrder.Weave.valueOf(weave));
  }

  /** The golden: {@code qkv} 0 each token's q/k/v scales, 1 static ones, 2 static with the tiled post (maxN 32). */
  @ParameterizedTest
  @CsvSource({"stories260K, int8, 40, false, false, false, 0, QKV", "stories260K, s2_4, 28, false, true, true, 0, QKV",
      "stories260K, int8, 40, true, true, true, 0, QKV", "stories260K, s2_4, 28, true, true, false, 0, QKV",
      "stories260K, int4, 16, false, true, false, 0, QKV", "stories260K, int8, 40, true, true, true, 1, QKV",
      "stories260K, s2_4, 28, false, true, true, 2, QKV", "gqa, int8, 26, true, true, true, 0, QKV",
      "stories260K, int8, 40, true, false, false, 0, GATED", "stories260K, s2_4, 28, true, true, true, 0, GATED",
      "stories260K, int8, 40, true, true, true, 0, GATED", "stories260K, s2_4, 28, true, true, false, 0, GATED",
      "stories260K, int4, 16, true, true, false, 0, GATED", "stories260K, int8, 40, true, true, true, 1, GATED",
      "stories260K, s2_4, 28, true, true, true, 2, GATED", "gqa, int8, 26, true, true, true, 0, GATED",
      "gqa, s2_4, 26, true, true, false, 0, GATED", "stories260K, int8, 40, false, true, true, 0, GATED",
      "stories260K, int4, 16, true, true, true, 0, GATED", "gqa, s2_4, 26, true, true, true, 0, GATED",
      "gqa, int8, 26, true, false, false, 0, GATED"})
  void wovenPrefillGivesTheOneBlockLogitsAndTheModelsCounters(String shape, String format, int tokens, boolean gate,
                                                              boolean xKeep, boolean acrossLayers, int qkv,
                                                              String weave) throws Exception {
    ModelWeights w = shape.equals("gqa") ? SyntheticWeights.generate(new ModelConfig(128, 172, 2, 4, 2, 64, 64), 7)
        : ModelCatalog.load("stories260K", 1);
    MachineParams m = npu(format, gate, xKeep, qkv == 2 ? 32 : 0);
    int context = 48;
    int block = 8;
    int[] prompt = BlockInterleaverTest.prompt(tokens, w.config().vocabSize(), 7);
    LoweredModel model = WeightFormats.lower(w, format, m, context, 2 * m.maxM());
    if (qkv == 2) {
      assertEquals(null, model.orderQkvByTiles(), "Wqkv ordered per tile");
    }
    NpuDecoder one = new NpuDecoder(model, block, NpuEngine.GOLDEN, Fusion.FULL);
    NpuDecoder woven = new NpuDecoder(model, block, NpuEngine.GOLDEN, Fusion.FULL);
    one.lowering().staticQkv(qkv > 0);
    woven.lowering().staticQkv(qkv > 0).order(order(weave, acrossLayers));
    NpuDecoder.Step s = one.prefill(prompt, true);
    NpuDecoder.Step i = woven.prefill(prompt, true);
    assertTrue(woven.lowering().twoBlocksInFlight(), woven.lowering().twoBlocksWhyNot());
    for (int t = 0; t < s.logits().length; t++) {
      assertArrayEquals(s.logits()[t], i.logits()[t], "logits of token " + t);
    }
    assertArrayEquals(one.decode(prompt[3]).logits()[0], woven.decode(prompt[3]).logits()[0], "decode logits");
    assertEquals(s.counter(Counter.MACS), i.counter(Counter.MACS));
    NpuDecoder last = new NpuDecoder(model, block, NpuEngine.GOLDEN, Fusion.FULL);
    last.lowering().staticQkv(qkv > 0).order(order(weave, acrossLayers));
    PhaseCostModel cost = PhaseCostModel.forFormat(w.config(), m, context, block, format, Fusion.FULL)
        .staticQkv(qkv > 0, qkv == 2).order(order(weave, acrossLayers));
    NpuDecoder.Step golden = last.prefill(prompt, false);
    PhaseCostModelTest.assertEveryCounterEqual(golden, cost.step(prompt.length, 0, w.config().layers()));
    NpuDecoder staggered = new NpuDecoder(model, block, NpuEngine.GOLDEN, Fusion.FULL);
    staggered.lowering().staticQkv(qkv > 0).interleave(true).twoBlocks(true).staggered(true)
        .acrossLayers(acrossLayers);
    System.out.printf("woven %s %s %s %d tokens%s%s%s, q/k/v %d: one block %,d cycles, staggered %,d, woven %,d%n",
        weave, shape, format, tokens, gate ? " gate" : "", xKeep ? " xKeep" : "", acrossLayers ? " across layers" : "", qkv,
        s.counter(Counter.CYCLES), staggered.prefill(prompt, false).counter(Counter.CYCLES),
        golden.counter(Counter.CYCLES));
  }

  /** The walk in the woven order against the lowering's program, every counter. */
  @ParameterizedTest
  @CsvSource({"stories260K, int8, 16, false, false, false, 0, QKV", "stories260K, int8, 40, false, false, true, 0, QKV",
      "stories260K, s2_4, 28, false, true, true, 0, QKV", "stories260K, int4, 16, false, true, true, 0, QKV",
      "stories260K, int8, 40, true, true, true, 0, QKV", "stories260K, s2_4, 28, true, true, false, 0, QKV",
      "stories260K, s2_4, 28, true, true, true, 1, QKV", "gqa, int8, 26, false, false, true, 0, QKV",
      "gqa, s2_4, 26, true, true, true, 0, QKV", "stories260K, int8, 16, true, false, false, 0, GATED",
      "stories260K, int8, 40, true, false, true, 0, GATED", "stories260K, s2_4, 28, true, true, true, 0, GATED",
      "stories260K, int4, 16, true, true, true, 0, GATED", "stories260K, int8, 40, true, true, false, 0, GATED",
      "stories260K, s2_4, 28, true, true, true, 1, GATED", "gqa, int8, 26, true, false, true, 0, GATED",
      "gqa, s2_4, 26, true, true, true, 0, GATED", "gqa, int4, 26, true, true, false, 0, GATED"})
  void wovenTheWalkEqualsTheLowering(String shape, String format, int tokens, boolean gate, boolean xKeep,
                                     boolean acrossLayers, int qkv, String weave) throws Exception {
    ModelConfig c = shape.equals("gqa") ? new ModelConfig(64, 172, 2, 4, 2, 512, 512)
        : ModelCatalog.load("stories260K", 1).config();
    MachineParams m = npu(format, gate, xKeep, 0);
    PhaseCostModel lowering = model(c, m, format, false).staticQkv(qkv > 0, false).order(order(weave, acrossLayers));
    PhaseCost exact = lowering.step(tokens, 0, 5);
    assertEquals("", lowering.twoBlocksWhyNot(), "two blocks fit the lowering");
    PhaseCostModel walk = model(c, m, format, true).staticQkv(qkv > 0, false).order(order(weave, acrossLayers));
    PhaseCost walked = walk.step(tokens, 0, 5);
    PhaseCost staggered = model(c, m, format, true).staticQkv(qkv > 0, false).interleave(true, true)
        .staggered(true).acrossLayers(acrossLayers).step(tokens, 0, 5);
    StringBuilder differ = new StringBuilder();
    for (Counter k : Counter.values()) {
      if (exact.counter(k) != walked.counter(k)) {
        differ.append(' ').append(k.key()).append(' ').append(exact.counter(k)).append(" != ")
            .append(walked.counter(k));
      }
    }
    System.out.printf("woven walk %s %s %s %d tokens%s%s%s, q/k/v %d: lowering %,d cycles, walk %,d (staggered %,d)%n",
        weave, shape, format, tokens, gate ? " gate" : "", xKeep ? " xKeep" : "", acrossLayers ? " across layers" : "", qkv,
        exact.cycles(), walked.cycles(), staggered.cycles());
    assertEquals("", differ.toString(), "the walk's counters against the lowering's");
  }

  private static PhaseCostModel model(ModelConfig c, MachineParams m, String format, boolean extrapolate) {
    return new PhaseCostModel(c, m, 48, 8, extrapolate, WeightFormats.bits(format), WeightFormats.group(format),
        WeightFormats.sparsity(format), WeightFormats.mx(format), Fusion.FULL);
  }
}
