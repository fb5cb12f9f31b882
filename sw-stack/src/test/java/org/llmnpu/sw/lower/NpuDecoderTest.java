package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.sw.eval.LogitComparison;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.DenseKvCache;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Transformer;

/** stories260K lowered to NPU programs, run on the golden ISA simulator. */
class NpuDecoderTest {
  private static ModelWeights weights;
  private static LoweredModel model;
  private static final int[] PROMPT = {1, 403, 407, 261, 378};

  @BeforeAll
  static void load() throws Exception {
    weights = ModelCatalog.load("stories260K", 1);
    model = new LoweredModel(weights, NpuTargets.defaultNpu(), 24, 16);
  }

  @Test
  void integerPathFollowsTheFp32Model() {
    NpuDecoder npu = new NpuDecoder(model, 16, NpuEngine.GOLDEN);
    Transformer fp32 = new Transformer(weights);
    DenseKvCache kv = fp32.newCache(24);
    float[][] ref = fp32.forwardAll(PROMPT, kv);
    NpuDecoder.Step pre = npu.prefill(PROMPT, true);
    LogitComparison cmp = LogitComparison.compare(ref, pre.logits());
    assertTrue(cmp.top1Agreement() >= 0.8, "top-1 " + cmp.top1Agreement());
    assertTrue(cmp.klDivergence() < 0.05, "KL " + cmp.klDivergence());
    // MACs: per token the block GEMMs (QKV, Wo with head-padded K, W1|W3, W2), per token and head the
    // scores GEMV over the line-aligned window of the K row from the line holding its KV head's first even code to
    // its last odd code (kvDim is one K chunk here; the other heads' rows in it are zero) and P·V over N = 8 or 16,
    // the LM head per token.
    var c = weights.config();
    int line = NpuTargets.defaultNpu().lineBytes();
    int half = c.headDim() / 2;
    int nk = c.kvDim() / 2;
    long perToken = (long) c.dim() * (c.dim() + 2 * c.kvDim()) + 8L * 16 * c.dim() + (long) c.dim() * 2 * 172 + 172L * c.dim();
    long attention = 0;
    for (int s = 1; s <= PROMPT.length; s++) {
      for (int h = 0; h < c.heads(); h++) {
        int g = h / (c.heads() / c.kvHeads());
        int window = nk + (g + 1) * half - g * half / line * line;
        attention += (long) s * window + (long) s * (h / 2 % 2 == 0 ? 8 : 16);
      }
    }
    long expected = c.layers() * (PROMPT.length * perToken + attention) + PROMPT.length * (long) c.dim() * c.vocabSize();
    assertEquals(expected, pre.counter(Counter.MACS));
    assertTrue(pre.counter(Counter.CYCLES) > 0 && pre.counter(Counter.DSP_INSTRUCTIONS) > 0);
  }

  @Test
  void aDecodeStepEqualsThePrefillOfTheSameTokensBitForBit() {
    NpuDecoder whole = new NpuDecoder(model, 16, NpuEngine.GOLDEN);
    float[] last = whole.prefill(PROMPT, false).logits()[0];
    NpuDecoder stepwise = new NpuDecoder(model, 2, NpuEngine.GOLDEN);
    stepwise.prefill(java.util.Arrays.copyOf(PROMPT, PROMPT.length - 1), false);
    NpuDecoder.Step d = stepwise.decode(PROMPT[PROMPT.length - 1]);
    assertArrayEquals(last, d.logits()[0]);
    assertEquals(PROMPT.length, stepwise.length());
  }

  @Test
  void aDecodeStepAppendsOneKvRowPerLayerAndTouchesNoOtherSlot() {
    NpuDecoder npu = new NpuDecoder(model, 16, NpuEngine.GOLDEN);
    npu.prefill(PROMPT, false);
    byte[] before = npu.image();
    NpuDecoder.Step d = npu.decode(300);
    byte[] after = npu.image();
    int layers = weights.config().layers();
    // per K and V row the codes and the scale, not the line padding no command wrote (KvRowStores)
    long rowBytes = java.util.Arrays.stream(KvRowStores.runs(weights.config().kvDim(), model.machine().lineBytes()))
        .mapToLong(run -> run[1]).sum();
    assertEquals(weights.config().kvDim() + 2, rowBytes);
    long cacheBytes = 2L * layers * rowBytes;
    assertEquals(cacheBytes + 2L * weights.config().vocabSize(), d.counter(Counter.DMA_STORE_BYTES));
    for (int l = 0; l < layers; l++) {
      for (long base : new long[] {model.kCache, model.vCache}) {
        long layer = base + (long) l * model.maxContext() * model.kvBytes;
        for (int slot = 0; slot < model.maxContext(); slot++) {
          long at = layer + (long) slot * model.kvBytes;
          boolean same = java.util.Arrays.equals(before, (int) at, (int) at + model.kvBytes, after, (int) at,
              (int) at + model.kvBytes);
          assertEquals(slot != PROMPT.length, same, model.describe(at));
        }
      }
    }
  }

  @Test
  void badStepsAreRefusedWithTheReason() {
    NpuDecoder npu = new NpuDecoder(model, 16, NpuEngine.GOLDEN);
    assertTrue(assertThrows(IllegalArgumentException.class, () -> npu.prefill(new int[] {1, 512}, false))
        .getMessage().contains("outside the vocabulary"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> npu.prefill(new int[25], false))
        .getMessage().contains("tokens"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> new LoweredModel(weights, NpuTargets.defaultNpu(), 600, 16)).getMessage().contains("maxContext"));
  }
}
