package org.llmnpu.sw.estimate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.LoweredModel;
import org.llmnpu.sw.lower.NpuDecoder;
import org.llmnpu.sw.lower.NpuEngine;
import org.llmnpu.sw.lower.NpuTargets;
import org.llmnpu.sw.lower.PhaseCostModel;
import org.llmnpu.sw.lower.PhaseCost;
import org.llmnpu.sw.lower.WeightFormats;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;

class CycleEstimatorTest {
  /**
   * The estimate of the shipped model, from its shape alone, is the golden simulator's run of the lowered program
   * with its weights: every counter of the prefill and of the decode step equal (cycles included), for each format.
   */
  @ParameterizedTest
  @CsvSource({"int8, 12, none", "int4-g32, 7, none", "s2_4, 9, none", "mxfp8, 5, none", "int8, 12, vertical",
      "int4-g32, 7, full"})
  void stories260KEstimateEqualsTheGoldenCountersOfTheSameProgram(String quant, int promptLen, String level)
      throws Exception {
    MachineParams npu = NpuTargets.defaultNpu().withUnits(0, false, WeightFormats.sparsity(quant))
        .withMxLoad(WeightFormats.mx(quant) >= 0).withCommandQueueDepth(4);
    Fusion fusion = Fusion.parse(level);
    CycleEstimate e = CycleEstimator.estimate(ModelShapes.of("stories260K"), npu, quant, promptLen, fusion);
    assertEquals(CycleEstimator.Staging.LOWERING, e.staging());

    ModelWeights w = ModelCatalog.load("stories260K", 1);
    assertEquals(w.config(), e.shape().config(), "the preset is the checkpoint's shape");
    LoweredModel model = WeightFormats.lower(w, quant, npu, promptLen + 1, promptLen);
    NpuDecoder golden = new NpuDecoder(model, e.block(), NpuEngine.GOLDEN, fusion);
    int[] prompt = new int[promptLen];
    for (int i = 0; i < promptLen; i++) {
      prompt[i] = i == 0 ? 1 : 256 + 7 * i;
    }
    NpuDecoder.Step pre = golden.prefill(prompt, false);
    NpuDecoder.Step dec = golden.decode(301);
    for (Counter c : Counter.values()) {
      assertEquals(pre.counter(c), e.prefill().counter(c), "prefill " + c.key());
      assertEquals(dec.counter(c), e.decode().counter(c), "decode " + c.key());
    }
    assertTrue(e.prefillMacUtilization() > 0 && e.prefillMacUtilization() < 1, "utilization " + e.prefillMacUtilization());
    assertTrue(e.decodeBandwidthUtilization() > 0 && e.decodeBandwidthUtilization() < 1);
  }

  @Test
  void aModelBeyondTheLayoutCheckIsStreamedInTiles() {
    ModelConfig c = new ModelConfig(1024, 2816, 2, 8, 8, 4096, 2048);
    assertTrue(CycleEstimator.parameters(c) > CycleEstimator.LAYOUT_CHECK_PARAMETERS);
    CycleEstimate e = CycleEstimator.estimate(new ModelShapes.Shape("mid", c, "test"), NpuTargets.defaultNpu(), "int8", 8);
    assertEquals(CycleEstimator.Staging.STREAMED, e.staging());
    assertEquals(8, e.block());
    // a decode step reads every block weight and the LM head once
    long weights = 2L * (1024L * 3072 + 1024L * 1024 + 3L * 1024 * 2816) + 4096L * 1024;
    assertTrue(e.decode().counter(Counter.DMA_LOAD_BYTES) > weights, "decode loads " + e.decode().readBytes());
    assertTrue(e.decodeDramBytesPerToken() < 1.1 * weights, "decode moves " + e.decodeDramBytesPerToken());
  }

  /**
   * A streamed prefill of more than one block at {@code --fusion full} goes with two blocks in flight, skewed, in
   * windows across layers, where that is faster: its walk costs three layers and scales the second to the rest (the
   * third drains the window), as costing every layer does (one block at a time: two layers); with each token's q/k/v
   * scales and with static ones (the tiled post in each block's head); with the PPM gate, staggered with the gated
   * W1/W3 GEMMs woven into the other block's attention where that is faster still.
   */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource({"false, false", "true, false", "false, true"})
  void aStreamedPrefillOfSeveralBlocksGoesTwoBlocksSkewedWhereThatIsFaster(boolean staticQkv, boolean gate) {
    // static scales and the gate need the PPM epilogues: W1|W3's K (dim) one GEMM on the default NPU (maxK 512)
    ModelConfig c = staticQkv || gate ? new ModelConfig(512, 1408, 4, 8, 8, 16384, 2048)
        : new ModelConfig(1024, 2816, 4, 8, 8, 4096, 2048);
    MachineParams p = NpuTargets.defaultNpu().withPpmGate(gate);
    CycleEstimate e = CycleEstimator.estimate(new ModelShapes.Shape("mid", c, "test"), p, "int8", 128,
        org.llmnpu.sw.lower.Fusion.FULL, staticQkv);
    assertEquals(CycleEstimator.Staging.STREAMED, e.staging());
    PhaseCostModel one = new PhaseCostModel(c, p, 129, e.block(), true, 8, 0, org.llmnpu.isa.Command.DENSE, -1,
        org.llmnpu.sw.lower.Fusion.FULL).staticQkv(staticQkv, staticQkv);
    PhaseCostModel two = new PhaseCostModel(c, p, 129, e.block(), true, 8, 0, org.llmnpu.isa.Command.DENSE, -1,
        org.llmnpu.sw.lower.Fusion.FULL).staticQkv(staticQkv, staticQkv).interleave(true, true).skewed(true)
        .acrossLayers(true);
    PhaseCost everyLayer = two.step(128, 0, c.layers());
    // in windows across layers the last layer drains the window: layers 0-2 costed, layer 1 stands for layer 2's
    assertEquals(everyLayer, two.step(128, 0, 2), "layers from the second on cost the same");
    PhaseCost oneEveryLayer = one.step(128, 0, c.layers());
    assertEquals(oneEveryLayer, one.step(128, 0, 2), "one block at a time too");
    long oneBlock = oneEveryLayer.cycles();
    System.out.printf("mid, 128 tokens in blocks of %d, q/k/v %s: one block at a time %,d cycles, two skewed %,d (%s;"
        + " %s)%n", e.block(), staticQkv ? "static" : "dynamic", oneBlock, everyLayer.cycles(), e.prefillOrder(),
        e.qkvPost());
    // staggered by half a layer (DecoderLowering#staggered) where that is faster still, with each token's q/k/v scales
    long staggered = staticQkv ? Long.MAX_VALUE : new PhaseCostModel(c, p, 129, e.block(), true, 8, 0,
        org.llmnpu.isa.Command.DENSE, -1, org.llmnpu.sw.lower.Fusion.FULL).interleave(true, true).staggered(true)
        .acrossLayers(true).step(128, 0, 2).cycles();
    // and that with the gated W1/W3 GEMMs woven into the other block's attention where the feed-forward goes gated
    long woven = staticQkv || !p.ppmGate() ? Long.MAX_VALUE : new PhaseCostModel(c, p, 129, e.block(), true, 8, 0,
        org.llmnpu.isa.Command.DENSE, -1, org.llmnpu.sw.lower.Fusion.FULL).order(new org.llmnpu.sw.lower.PrefillOrder(
            true, true, false, true, true, org.llmnpu.sw.lower.PrefillOrder.Weave.GATED)).step(128, 0, 2).cycles();
    System.out.printf("  staggered %,d, woven gated %,d%n", staggered, woven);
    long best = Math.min(Math.min(oneBlock, woven), Math.min(everyLayer.cycles(), staggered));
    assertEquals(best, e.prefill().cycles());
    assertEquals(best == woven && woven < Math.min(Math.min(oneBlock, staggered), everyLayer.cycles()),
        e.prefillOrder().equals(CycleEstimator.TWO_BLOCKS_WOVEN_GATED));
    assertEquals(best == staggered && staggered < Math.min(oneBlock, everyLayer.cycles()) && staggered <= woven,
        e.prefillOrder().equals(CycleEstimator.TWO_BLOCKS_STAGGERED));
    assertEquals(best == everyLayer.cycles() && everyLayer.cycles() < oneBlock && best < staggered && best < woven,
        e.prefillOrder().equals(CycleEstimator.TWO_BLOCKS_SKEWED));
  }

  /**
   * An estimate is kept within the JVM by what it depends on (the shape, not its name; the NPU; the options): asked
   * again it is the same costs, under the caller's shape; another option costs afresh.
   */
  @Test
  void anEstimateIsKeptByWhatItDependsOnUnderTheCallersShape() {
    ModelConfig c = new ModelConfig(1024, 2816, 2, 8, 8, 4096, 2048);
    MachineParams p = NpuTargets.defaultNpu();
    CycleEstimate a = CycleEstimator.estimate(new ModelShapes.Shape("a", c, "test"), p, "int8", 8);
    CycleEstimate b = CycleEstimator.estimate(new ModelShapes.Shape("b", c, "another source"), p, "int8", 8);
    assertEquals("b", b.shape().name());
    assertEquals("another source", b.shape().source());
    org.junit.jupiter.api.Assertions.assertSame(a.prefill(), b.prefill(), "kept, not costed again");
    org.junit.jupiter.api.Assertions.assertSame(a.decode(), b.decode());
    CycleEstimate longer = CycleEstimator.estimate(new ModelShapes.Shape("a", c, "test"), p, "int8", 9);
    assertTrue(longer.prefill().cycles() > a.prefill().cycles());
    CycleEstimate otherNpu = CycleEstimator.estimate(new ModelShapes.Shape("a", c, "test"), p.withCommandQueueDepth(1),
        "int8", 8);
    org.junit.jupiter.api.Assertions.assertNotSame(a.prefill(), otherNpu.prefill());
  }

  /**
   * The block is the largest whose buffers lay out at the fusion level costed: on a 2048-row DSP stories260K's 100-token
   * prompt lays out unfused in blocks of 64, but the fused lowering's batched attention needs more scratchpad.
   */
  @Test
  void theBlockIsTheLargestTheFusedLoweringLaysOut() {
    MachineParams d = NpuTargets.defaultNpu();
    MachineParams.DspParams dsp = d.dsp();
    MachineParams p = d.withDsp(new MachineParams.DspParams(dsp.lanes(), 2048, dsp.programDepth(),
        dsp.tableSegments(), dsp.tableDegree(), dsp.maxRunCycles(), dsp.executeStages(), dsp.permute()));
    CycleEstimate e = CycleEstimator.estimate(ModelShapes.of("stories260K"), p, "int8", 100,
        org.llmnpu.sw.lower.Fusion.FULL);
    assertEquals(CycleEstimator.Staging.LOWERING, e.staging());
    assertTrue(e.block() < 64, "block " + e.block());
    assertTrue(e.prefill().cycles() > 0);
    System.out.printf("stories260K, 100 tokens, 2048-row DSP, full: blocks of %d, %,d cycles, %s%n", e.block(),
        e.prefill().cycles(), e.prefillOrder());
  }

  @Test
  void namedShapesArePublishedOnes() {
    ModelConfig l3 = ModelShapes.of("llama-3-8b").config();
    assertEquals(4096, l3.dim());
    assertEquals(14336, l3.hiddenDim());
    assertEquals(8, l3.kvHeads());
    assertEquals(128256, l3.vocabSize());
    assertEquals(500000f, l3.ropeTheta());
    ModelConfig q = ModelShapes.of("qwen2.5-1.5b").config();
    assertEquals(1536, q.dim());
    assertEquals(28, q.layers());
    assertEquals(2, q.kvHeads());
    assertEquals(151936, q.vocabSize());
  }

  @Test
  void aHuggingFaceConfigGivesTheShape(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("config.json"), """
        {"architectures": ["LlamaForCausalLM"], "hidden_size": 2048, "intermediate_size": 5632,
         "num_hidden_layers": 22, "num_attention_heads": 32, "num_key_value_heads": 4, "vocab_size": 32000,
         "max_position_embeddings": 2048, "rope_theta": 10000.0, "rms_norm_eps": 1e-05, "torch_dtype": "bfloat16"}
        """);
    ModelConfig c = ModelShapes.of(dir.toString()).config();
    assertEquals(new ModelConfig(2048, 5632, 22, 32, 4, 32000, 2048, 10000f, 1e-5f), c);
  }

  @Test
  void aConfigWithoutShapeFieldsIsRefusedNamingThem(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("config.json"), "{\"n_embd\": 768, \"n_layer\": 12, \"hidden_size\": 768}");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ModelShapes.of(dir.toString()));
    assertTrue(e.getMessage().contains("intermediate_size, num_hidden_layers, num_attention_heads, vocab_size"),
        e.getMessage());
    assertTrue(e.getMessage().startsWith("--model"), e.getMessage());
    Files.writeString(dir.resolve("config.json"), """
        {"hidden_size": 768, "intermediate_size": 2048, "num_hidden_layers": 2, "num_attention_heads": 12,
         "vocab_size": 1000, "head_dim": 128}""");
    e = assertThrows(IllegalArgumentException.class, () -> ModelShapes.of(dir.toString()));
    assertTrue(e.getMessage().contains("head_dim 128"), e.getMessage());
  }

  @Test
  void badOptionsAreRefusedNamingTheOptionAndWhatItAllows() {
    ModelShapes.Shape s = ModelShapes.of("stories260K");
    MachineParams npu = NpuTargets.defaultNpu();
    String q = assertThrows(IllegalArgumentException.class, () -> CycleEstimator.estimate(s, npu, "fp16", 8))
        .getMessage();
    assertTrue(q.startsWith("--quant") && q.contains("int8, int4, int4-g32, s2_4, mxfp8"), q);
    String p = assertThrows(IllegalArgumentException.class, () -> CycleEstimator.estimate(s, npu, "int8", 512))
        .getMessage();
    assertTrue(p.startsWith("--prompt-len") && p.contains("1..511"), p);
    String sp = assertThrows(IllegalArgumentException.class, () -> CycleEstimator.estimate(s, npu, "s2_4", 8))
        .getMessage();
    assertTrue(sp.contains("sparsity: 2:4"), sp);
    String m = assertThrows(IllegalArgumentException.class, () -> ModelShapes.of("llama-9b")).getMessage();
    assertTrue(m.startsWith("--model") && m.contains("llama-2-7b, llama-3-8b, qwen2.5-1.5b, stories260K"), m);
  }
}
