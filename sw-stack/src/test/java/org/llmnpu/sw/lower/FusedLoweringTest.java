package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelWeights;

/**
 * The fused lowering on stories260K, on the golden ISA simulator: weights streamed into the array give the same
 * logits bit for bit as the unfused program in fewer cycles where the PPM epilogue does not apply (MXINT8; INT8, INT4
 * and 2:4 in {@link PpmEpilogueLoweringTest}, int4-g32's group-scaled stream in {@link GroupScaledLoweringTest}); the
 * cost model follows the stream exactly; what the NPU cannot fuse runs unfused and is named with why; a prompt longer
 * than maxM is prefilled in chunks.
 */
class FusedLoweringTest {
  static final int[] PROMPT = {1, 403, 407, 261, 378, 300};

  @ParameterizedTest
  @CsvSource({"mxint8, vertical", "mxint8, full"})
  void streamedWeightsGiveTheUnfusedLogitsInFewerCyclesAndTheCostModelFollows(String format, String level)
      throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams m = machine(format);
    Fusion fusion = Fusion.parse(level);
    NpuDecoder.Step[] steps = prefillAndDecode(w, format, fusion);
    NpuDecoder.Step p0 = steps[0];
    NpuDecoder.Step p1 = steps[1];
    NpuDecoder.Step d0 = steps[2];
    NpuDecoder.Step d1 = steps[3];
    assertArrayEquals(p0.logits()[0], p1.logits()[0], "prefill logits");
    assertArrayEquals(d0.logits()[0], d1.logits()[0], "decode logits");
    assertTrue(d1.counter(Counter.CYCLES) < d0.counter(Counter.CYCLES), d1.counter(Counter.CYCLES) + " vs "
        + d0.counter(Counter.CYCLES));
    if (fusion == Fusion.FULL) {
      // head-major K rows: each scores GEMV covers its KV head's line window, not all kvDim rows (the rest zero)
      assertTrue(d1.counter(Counter.MACS) < d0.counter(Counter.MACS), d1.counter(Counter.MACS) + " vs "
          + d0.counter(Counter.MACS));
    } else {
      assertEquals(d0.counter(Counter.MACS), d1.counter(Counter.MACS));
    }
    PhaseCostModel cost = PhaseCostModel.forFormat(w.config(), m, 24, 6, format, fusion);
    PhaseCostModelTest.assertEveryCounterEqual(p1, cost.step(PROMPT.length, 0, w.config().layers()));
    PhaseCostModelTest.assertEveryCounterEqual(d1, cost.step(1, PROMPT.length, w.config().layers()));
  }

  /** The default NPU, built for 2:4 or with MX decoding when {@code format} needs it. */
  static MachineParams machine(String format) {
    return (WeightFormats.sparsity(format) == org.llmnpu.isa.Command.S2_4 ? NpuTargets.sparse24()
        : NpuTargets.defaultNpu()).withMxLoad(WeightFormats.mx(format) >= 0);
  }

  /** Prefill of {@link #PROMPT} and one decode step, unfused then at {@code fusion}: {p0, p1, d0, d1}. */
  static NpuDecoder.Step[] prefillAndDecode(ModelWeights w, String format, Fusion fusion) {
    LoweredModel model = WeightFormats.lower(w, format, machine(format), 24, 16);
    NpuDecoder none = new NpuDecoder(model, 6, NpuEngine.GOLDEN, Fusion.NONE);
    NpuDecoder fused = new NpuDecoder(model, 6, NpuEngine.GOLDEN, fusion);
    NpuDecoder.Step p0 = none.prefill(PROMPT, false);
    NpuDecoder.Step p1 = fused.prefill(PROMPT, false);
    return new NpuDecoder.Step[] {p0, p1, none.decode(301), fused.decode(301)};
  }

  @Test
  void whatTheNpuCannotFuseRunsUnfusedAndIsNamedWithWhy() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    // mxfp8: the weight stream does not decode MX elements, so the whole program is none's, and the cost model's too
    MachineParams mxNpu = machine("mxfp8");
    NpuDecoder.Step[] steps = prefillAndDecode(w, "mxfp8", Fusion.FULL);
    assertArrayEquals(steps[0].logits()[0], steps[1].logits()[0], "prefill logits");
    assertArrayEquals(steps[2].logits()[0], steps[3].logits()[0], "decode logits");
    assertEquals(steps[0].counter(Counter.CYCLES), steps[1].counter(Counter.CYCLES));
    PhaseCostModel cost = PhaseCostModel.forFormat(w.config(), mxNpu, 24, 6, "mxfp8", Fusion.FULL);
    PhaseCostModelTest.assertEveryCounterEqual(steps[1], cost.step(PROMPT.length, 0, w.config().layers()));
    LoweredModel mx = WeightFormats.lower(w, "mxfp8", mxNpu, 12, 8);
    Fusion.Applied a = new NpuDecoder(mx, 4, NpuEngine.GOLDEN, Fusion.FULL).lowering().fusionApplied();
    assertEquals(Fusion.FULL, a.requested());
    assertEquals(Fusion.NONE, a.applied());
    assertTrue(a.summary().startsWith("--fusion full, run as none; not applied: streamed weights: this NPU lacks MX "
        + "element decoding on the weight stream"), a.summary());
    assertTrue(a.summary().contains("feed-forward epilogue on the PPM and batched P·V"), a.summary());
    // an NPU copying 4 W rows a cycle has no streamed GEMM
    MachineParams fast = NpuTargets.defaultNpu().withWeightRowsPerCycle(4);
    Fusion.Applied f = Fusion.VERTICAL.on(fast, w.config().dim(), 8, 0, org.llmnpu.isa.Command.DENSE, -1);
    assertEquals(Fusion.NONE, f.applied());
    assertTrue(f.notApplied().get(0).contains("gemm wStream=1 (weights streamed from external memory into the array)"),
        f.notApplied().toString());
    // int4-g32 streams its weights; only the PPM epilogue falls back (grouped K), the level stays full
    Fusion.Applied g = Fusion.FULL.on(machine("int4-g32"), w.config().dim(), 4, 32, org.llmnpu.isa.Command.DENSE, -1);
    assertEquals(Fusion.FULL, g.applied());
    assertEquals(1, g.notApplied().size(), g.notApplied().toString());
    assertTrue(g.notApplied().get(0).startsWith("feed-forward epilogue on the PPM: grouped weight scales"),
        g.notApplied().toString());
    // an NPU whose PPM has no PPU: streamed weights and the batched P·V, the feed-forward on the DSP
    MachineParams noPpu = NpuTargets.defaultNpu().withUnits(0, false, org.llmnpu.isa.Command.DENSE);
    Fusion.Applied n = Fusion.FULL.on(noPpu, w.config().dim(), 8, 0, org.llmnpu.isa.Command.DENSE, -1);
    assertEquals(Fusion.FULL, n.applied());
    assertTrue(n.summary().contains("feed-forward epilogue on the PPM: this NPU's PPM has no PPU"), n.summary());
    // int8 on the default NPU: everything applied
    assertEquals("--fusion full: every fusion applied",
        Fusion.FULL.on(machine("int8"), w.config().dim(), 8, 0, org.llmnpu.isa.Command.DENSE, -1).summary());
    // none asked: nothing to apply, and the line says so
    assertEquals("--fusion none: nothing fused, as asked",
        Fusion.NONE.on(machine("int8"), w.config().dim(), 8, 0, org.llmnpu.isa.Command.DENSE, -1).summary());
    assertEquals("--fusion: 'some' is not allowed; allowed: none, vertical, full",
        assertThrows(IllegalArgumentException.class, () -> Fusion.parse("some")).getMessage());
  }

  @ParameterizedTest
  @CsvSource({"vertical", "full"})
  void aPromptLongerThanMaxMIsPrefilledInChunksAsTheDecodeStepsWouldFeedIt(String level) throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams m = MachineParams.builder().rows(16).lineBytes(16).spadBytes(256 * 1024).spadBanks(4)
        .extMemBytes(16L << 20).mTile(16).accWidth(32).icAccumDepth(0).maxM(4).maxK(512).maxN(128).memLatency(32)
        .memBytesPerCycle(16).watchdogCycles(4096).build();
    LoweredModel model = WeightFormats.lower(w, "int8", m, 16, 4);
    Fusion fusion = Fusion.parse(level);
    int[] prompt = {1, 403, 407, 261, 378, 300, 290, 311, 265, 280};
    // at full the chunks after the first start inside Kᵀ's first line of 16 slots: its earlier tokens restaged
    NpuDecoder chunked = new NpuDecoder(model, 4, NpuEngine.GOLDEN, fusion);
    assertEquals(fusion, chunked.lowering().fusionApplied().applied());
    if (fusion == Fusion.FULL) {
      LoweringLayout layout = new LoweringLayout(model, 4, true);
      assertTrue(new BatchedAttention(new LoweringEmitter(layout, p -> model.dspPool, fusion)).keyScores != null);
    }
    NpuDecoder.Step s = chunked.prefill(prompt, false);
    NpuDecoder oneByOne = new NpuDecoder(model, 4, NpuEngine.GOLDEN, fusion);
    NpuDecoder.Step last = null;
    for (int i = 0; i < prompt.length; i++) {
      last = i == 0 ? oneByOne.prefill(new int[] {prompt[0]}, false) : oneByOne.decode(prompt[i]);
    }
    assertEquals(prompt.length, chunked.length());
    assertArrayEquals(last.logits()[0], s.logits()[0], "a token's computation does not depend on its program");
    PhaseCost cost = PhaseCostModel.forFormat(w.config(), m, 16, 4, "int8", fusion)
        .step(prompt.length, 0, w.config().layers());
    PhaseCostModelTest.assertEveryCounterEqual(s, cost);
  }

  @ParameterizedTest
  @CsvSource({"40, 48, 16, int8, true", "6, 512, 6, int8, true", "20, 64, 16, int4-g32, true",
      "17, 24, 16, int8, true", "5, 24, 1, int8, false"})
  void batchedValueProductsGiveTheUnfusedLogitsInFewerCyclesAndTheCostModelFollows(int promptLen, int context,
      int block, String format, boolean batchedScores) throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams m = NpuTargets.defaultNpu();
    LoweredModel model = WeightFormats.lower(w, format, m, context, promptLen);
    // the scores one GEMM per KV head where the scratchpad holds their regions and a batch has two tokens or more
    LoweringLayout layout = new LoweringLayout(model, block, true);
    BatchedAttention attention = new BatchedAttention(new LoweringEmitter(layout, p -> model.dspPool, Fusion.FULL));
    // stories260K's scores are one K chunk: Q·Kᵀ against the transposed K cache wherever a batch has two tokens
    assertEquals(batchedScores, attention.keyScores != null, "scores against Kᵀ at context " + context);
    assertEquals(null, attention.scores, "no Sᵀ = K·Qᵀ where Kᵀ applies");
    int[] prompt = new int[promptLen];
    for (int i = 0; i < promptLen; i++) {
      prompt[i] = (37 * i + 11) % w.config().vocabSize();
    }
    NpuDecoder vertical = new NpuDecoder(model, block, NpuEngine.GOLDEN, Fusion.VERTICAL);
    NpuDecoder full = new NpuDecoder(model, block, NpuEngine.GOLDEN, Fusion.FULL);
    NpuDecoder.Step p0 = vertical.prefill(prompt, false);
    NpuDecoder.Step p1 = full.prefill(prompt, false);
    assertArrayEquals(p0.logits()[0], p1.logits()[0], "prefill logits");
    assertTrue(p1.counter(Counter.CYCLES) < p0.counter(Counter.CYCLES), p1.counter(Counter.CYCLES) + " vs "
        + p0.counter(Counter.CYCLES));
    NpuDecoder.Step d0 = vertical.decode(301);
    NpuDecoder.Step d1 = full.decode(301);
    assertArrayEquals(d0.logits()[0], d1.logits()[0], "decode logits");
    PhaseCostModel cost = PhaseCostModel.forFormat(w.config(), m, context, block, format, Fusion.FULL);
    PhaseCostModelTest.assertEveryCounterEqual(p1, cost.step(promptLen, 0, w.config().layers()));
    PhaseCostModelTest.assertEveryCounterEqual(d1, cost.step(1, promptLen, w.config().layers()));
  }

  /**
   * Kᵀ stays current across programs: blocks starting inside a line of slots restage its earlier tokens, a decode step
   * completing a line writes it, a verification pass after them reads it; every logit equals the GEMVs' path, and the
   * cost model follows the prefill and the decode step.
   */
  @Test
  void theTransposedKeysStayCurrentAcrossBlocksDecodeStepsAndVerification() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams m = NpuTargets.defaultNpu();
    LoweredModel model = WeightFormats.lower(w, "int8", m, 48, 16);
    int[] prompt = new int[15];
    for (int i = 0; i < prompt.length; i++) {
      prompt[i] = (53 * i + 7) % w.config().vocabSize();
    }
    NpuDecoder vertical = new NpuDecoder(model, 6, NpuEngine.GOLDEN, Fusion.VERTICAL);
    NpuDecoder full = new NpuDecoder(model, 6, NpuEngine.GOLDEN, Fusion.FULL);
    PhaseCostModel cost = PhaseCostModel.forFormat(w.config(), m, 48, 6, "int8", Fusion.FULL);
    int layers = w.config().layers();
    // blocks at slots 0, 6 and 12: the last two start inside the first line of 16 slots
    NpuDecoder.Step p1 = full.prefill(prompt, false);
    assertArrayEquals(vertical.prefill(prompt, false).logits()[0], p1.logits()[0], "prefill logits");
    PhaseCostModelTest.assertEveryCounterEqual(p1, cost.step(prompt.length, 0, layers));
    // slot 15 completes the first line: its Kᵀ columns written by the decode step
    NpuDecoder.Step d1 = full.decode(301);
    assertArrayEquals(vertical.decode(301).logits()[0], d1.logits()[0], "decode logits at slot 15");
    PhaseCostModelTest.assertEveryCounterEqual(d1, cost.step(1, 15, layers));
    assertArrayEquals(vertical.decode(302).logits()[0], full.decode(302).logits()[0], "decode logits at slot 16");
    // a verification pass at slot 17 reads the first line from memory and restages slot 16
    int[] draft = {17, 290, 311};
    NpuDecoder.Step v0 = vertical.verify(draft);
    NpuDecoder.Step v1 = full.verify(draft);
    for (int i = 0; i < draft.length; i++) {
      assertArrayEquals(v0.logits()[i], v1.logits()[i], "verification logits of token " + i);
    }
  }

  /**
   * Where kvDim exceeds maxK (stories260K's 32 on an NPU of maxK 16) the unfused scores GEMV runs in two K chunks whose
   * FP16 partials the DSP sums in FP32, while {@code Q·Kᵀ} (K = half a head, 4) is one exact INT32 dot product: the
   * scores, and so the logits, may differ there; both stay as close to FP32 (top-1 and KL on held-out sequences).
   * Blocks of 8 (the second starting inside a line of slots), a scratchpad of 512 KiB for the K-chunked GEMMs' Y.
   */
  @Test
  void whereKvDimExceedsMaxKTheScoresAreExactAndTheLogitsMayDiffer() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams m = NpuTargets.defaultNpu().with(b -> b.spadBytes(512 * 1024).maxK(16));
    LoweredModel model = WeightFormats.lower(w, "int8", m, 24, 16);
    LoweringLayout layout = new LoweringLayout(model, 8, true);
    assertEquals(2, layout.scoreSplit.count(), "the scores GEMV in two K chunks");
    assertTrue(new BatchedAttention(new LoweringEmitter(layout, p -> model.dspPool, Fusion.FULL)).keyScores != null);
    int[] prompt = {1, 403, 407, 261, 378, 300, 290, 311, 265, 280, 17, 42};
    NpuDecoder vertical = new NpuDecoder(model, 8, NpuEngine.GOLDEN, Fusion.VERTICAL);
    NpuDecoder full = new NpuDecoder(model, 8, NpuEngine.GOLDEN, Fusion.FULL);
    float[][] v = vertical.prefill(prompt, true).logits();
    NpuDecoder.Step f = full.prefill(prompt, true);
    int differ = 0;
    for (int i = 0; i < prompt.length; i++) {
      differ += java.util.Arrays.equals(v[i], f.logits()[i]) ? 0 : 1;
    }
    NpuDecoder.Step last = new NpuDecoder(model, 8, NpuEngine.GOLDEN, Fusion.FULL).prefill(prompt, false);
    assertArrayEquals(f.logits()[prompt.length - 1], last.logits()[0]);
    PhaseCostModelTest.assertEveryCounterEqual(last, PhaseCostModel.forFormat(w.config(), m, 24, 8, "int8",
        Fusion.FULL).step(prompt.length, 0, w.config().layers()));
    var none = IntegerPathAccuracy.evaluate(w, "int8", m, 2, 24, 2_000_000L, Fusion.VERTICAL);
    var exact = IntegerPathAccuracy.evaluate(w, "int8", m, 2, 24, 2_000_000L, Fusion.FULL);
    System.out.printf(java.util.Locale.ROOT, "maxK 16: %d of %d positions' logits differ; vertical top-1 %.4f KL %.5f, "
        + "full (Q·Kᵀ) top-1 %.4f KL %.5f%n", differ, prompt.length, none.top1Agreement(), none.klDivergence(),
        exact.top1Agreement(), exact.klDivergence());
    assertTrue(differ > 0, "the FP32-summed partials and the exact INT32 scores round apart somewhere");
    assertEquals(none.top1Agreement(), exact.top1Agreement(), 0.05);
    assertEquals(none.klDivergence(), exact.klDivergence(), 0.02);
  }
}
