package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.eval.LogitComparison;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.DenseKvCache;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Transformer;

/**
 * stories260K on NPUs whose GEMM engine takes K of at most 48 or 64 (below the model's K of 64,
 * 128 and 172, and the context): every GEMM with a longer K runs as K chunks whose partials the
 * DSP sums in FP32. Golden ISA simulator.
 */
class KTilingTest {
  private static final int[] PROMPT = {1, 403, 407, 261, 378};
  private static ModelWeights weights;

  @BeforeAll
  static void load() throws Exception {
    weights = ModelCatalog.load("stories260K", 1);
  }

  /** The default NPU with another maxK. */
  static MachineParams withMaxK(int maxK) {
    return MachineParams.builder().rows(16).lineBytes(16).spadBytes(256 * 1024).spadBanks(4).extMemBytes(16L << 20)
        .mTile(16).accWidth(32).icAccumDepth(0).maxM(64).maxK(maxK).maxN(128).memLatency(32).memBytesPerCycle(16)
        .watchdogCycles(4096).build();
  }

  @Test
  void smallMaxKSplitsEveryLongGemmAndKeepsTheResults() {
    LoweredModel tiled = new LoweredModel(weights, withMaxK(48), 24, 16);
    LoweredModel whole = new LoweredModel(weights, NpuTargets.defaultNpu(), 24, 16);
    NpuDecoder.Step a = new NpuDecoder(tiled, 16, NpuEngine.GOLDEN).prefill(PROMPT, true);
    NpuDecoder.Step b = new NpuDecoder(whole, 16, NpuEngine.GOLDEN).prefill(PROMPT, true);
    // the same multiply-accumulates, in more (shorter) GEMM commands
    assertEquals(b.counter(Counter.MACS), a.counter(Counter.MACS));
    assertTrue(a.commands() > b.commands());
    // the partials' FP16 rounding flips a few INT8 codes downstream: close to the unsplit logits, as close to FP32
    LogitComparison cmp = LogitComparison.compare(b.logits(), a.logits());
    assertTrue(cmp.top1Agreement() >= 0.8 && cmp.klDivergence() < 0.05, cmp.toString());
    Transformer fp32 = new Transformer(weights);
    LogitComparison acc = LogitComparison.compare(fp32.forwardAll(PROMPT, fp32.newCache(24)), a.logits());
    assertTrue(acc.top1Agreement() >= 0.8 && acc.klDivergence() < 0.05, acc.toString());
  }

  @Test
  void aDecodeStepEqualsThePrefillOfTheSameTokensWithKTiling() {
    LoweredModel tiled = new LoweredModel(weights, withMaxK(48), 24, 16);
    float[] last = new NpuDecoder(tiled, 16, NpuEngine.GOLDEN).prefill(PROMPT, false).logits()[0];
    NpuDecoder stepwise = new NpuDecoder(tiled, 2, NpuEngine.GOLDEN);
    stepwise.prefill(java.util.Arrays.copyOf(PROMPT, PROMPT.length - 1), false);
    assertArrayEquals(last, stepwise.decode(PROMPT[PROMPT.length - 1]).logits()[0]);
  }

  @Test
  void attentionOverAContextLongerThanMaxKIsAsAccurateAsWithoutTiling() {
    int context = 112;
    Transformer fp32 = new Transformer(weights);
    int[] text = org.llmnpu.sw.eval.SampledSequences.sample(fp32, 1, 100, 7)[0];
    DenseKvCache kv = fp32.newCache(context);
    float[][] ref = java.util.Arrays.copyOfRange(fp32.forwardAll(text, kv), 48, text.length);
    // positions 48.. attend over 2 or 3 K chunks of P·V (and every weight GEMM is split too)
    LogitComparison tiled = LogitComparison.compare(ref, run(withMaxK(48), context, text));
    LogitComparison whole = LogitComparison.compare(ref, run(NpuTargets.defaultNpu(), context, text));
    assertTrue(tiled.top1Agreement() >= whole.top1Agreement() - 0.05, tiled + " vs " + whole);
    assertTrue(tiled.klDivergence() <= 1.25 * whole.klDivergence(), tiled + " vs " + whole);
  }

  private static float[][] run(MachineParams machine, int context, int[] text) {
    NpuDecoder npu = new NpuDecoder(new LoweredModel(weights, machine, context, 32), 16, NpuEngine.GOLDEN);
    float[][] got = new float[text.length][];
    for (int at = 0; at < text.length; at += 32) {
      int[] part = java.util.Arrays.copyOfRange(text, at, Math.min(text.length, at + 32));
      float[][] l = npu.verify(part).logits();
      System.arraycopy(l, 0, got, at, l.length);
    }
    return java.util.Arrays.copyOfRange(got, 48, text.length);
  }
}
