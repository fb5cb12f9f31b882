package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.eval.LogitComparison;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.SyntheticWeights;
import org.llmnpu.sw.model.Transformer;

/**
 * RoPE halves narrower than the DSP's lanes ({@link LoweredModel#qSpan}): stories260K (8 heads, 4 KV heads, headDim 8:
 * q and k halves of 32 and 16 elements) and a GQA shape of hidden 172 (4 heads of 16, 2 KV heads: halves of 32 and
 * 16) lowered on DSPs of 16, 32 and 64 lanes, unfused and at {@code --fusion full}. On the golden simulator a prefill
 * and a decode step: the decode step's logits equal the prefill's of the same tokens bit for bit, every position's
 * logits equal those of the same lowering on 16 lanes (where nothing is padded) bit for bit, unfused stories260K
 * follows the FP32 model within {@code NpuDecoderTest}'s bounds, and the cost model's every counter equals the
 * golden's. Where the halves are whole rows (16 lanes) nothing is padded, so those
 * programs are the ones the lowering always emitted.
 */
class NarrowRopeHalvesTest {
  /** The GQA shape of {@code WalkScheduleTest}: dim 64, hidden 172, 2 layers, 4 heads, 2 KV heads. */
  static final ModelConfig GQA = new ModelConfig(64, 172, 2, 4, 2, 512, 512);
  private static final int CONTEXT = 12;

  /** The default NPU with a DSP of {@code lanes} lanes (512 rows, 256 program words, 4 stages). */
  static MachineParams withLanes(int lanes) {
    return NpuTargets.defaultNpu().withDsp(new MachineParams.DspParams(lanes, 512, 256, 12, 2, 1L << 24, 4));
  }

  @ParameterizedTest
  @CsvSource({"stories260K, 16, none", "stories260K, 32, none", "stories260K, 64, none", "stories260K, 64, full",
      "stories260K, 32, full", "gqa, 16, none", "gqa, 32, none", "gqa, 64, none", "gqa, 64, full", "gqa, 32, full"})
  void narrowHalvesAreLoweredExactlyCostedAndFollowTheModel(String shape, int lanes, String fusion) throws Exception {
    ModelWeights w = shape.equals("gqa") ? SyntheticWeights.generate(GQA, 7) : ModelCatalog.load("stories260K", 1);
    ModelConfig c = w.config();
    MachineParams m = withLanes(lanes);
    LoweredModel model = new LoweredModel(w, m, CONTEXT, 8);
    int half = c.headDim() / 2;
    assertEquals(LoweredModel.roundUp(c.heads() * half, lanes), model.qSpan);
    assertEquals(c.dim() + 2 * c.kvDim() + 2 * (model.qSpan - c.heads() * half)
        + 2 * (model.kSpan - c.kvHeads() * half), model.qkvN, "QKV columns with the padding");
    int[] prompt = {1, 403, 407, 261, 378};
    Fusion f = Fusion.parse(fusion);
    NpuDecoder npu = new NpuDecoder(model, 4, NpuEngine.GOLDEN, f);
    NpuDecoder.Step pre = npu.prefill(prompt, false);
    NpuDecoder.Step dec = npu.decode(301);
    PhaseCostModel cost = new PhaseCostModel(c, m, CONTEXT, 4, false, 8, 0, org.llmnpu.isa.Command.DENSE, -1, f);
    PhaseCostModelTest.assertEveryCounterEqual(pre, cost.step(prompt.length, 0, c.layers()));
    PhaseCostModelTest.assertEveryCounterEqual(dec, cost.step(1, prompt.length, c.layers()));

    NpuDecoder whole = new NpuDecoder(model, 8, NpuEngine.GOLDEN, f);
    int[] six = {1, 403, 407, 261, 378, 301};
    float[][] all = whole.prefill(six, true).logits();
    assertArrayEquals(all[six.length - 1], dec.logits()[0], "the decode step equals the prefill of the same tokens");
    if (lanes != 16) {
      // the padding changes no number: the logits are those of the lowering on 16 lanes, whose halves are whole rows
      NpuDecoder unpadded = new NpuDecoder(new LoweredModel(w, withLanes(16), CONTEXT, 8), 8, NpuEngine.GOLDEN, f);
      float[][] u = unpadded.prefill(six, true).logits();
      for (int i = 0; i < six.length; i++) {
        assertArrayEquals(u[i], all[i], "position " + i + "'s logits on 16 and " + lanes + " lanes");
      }
    }
    if (shape.equals("stories260K") && f == Fusion.NONE) {
      // NpuDecoderTest's bounds on its prompt: the first five positions
      Transformer fp32 = new Transformer(w);
      float[][] ref = fp32.forwardAll(prompt, fp32.newCache(CONTEXT));
      LogitComparison cmp = LogitComparison.compare(ref, java.util.Arrays.copyOf(all, prompt.length));
      assertTrue(cmp.top1Agreement() >= 0.8, "top-1 " + cmp.top1Agreement());
      assertTrue(cmp.klDivergence() < 0.05, "KL " + cmp.klDivergence());
    }
    System.out.printf("%s, %d lanes, fusion %s: qSpan %d, kSpan %d, qkvN %d; prefill %,d cycles, decode %,d%n", shape,
        lanes, fusion, model.qSpan, model.kSpan, model.qkvN, pre.counter(org.llmnpu.isa.Counter.CYCLES),
        dec.counter(org.llmnpu.isa.Counter.CYCLES));
  }

  /**
   * Edge-64's structure as cosim's {@code Edge64CosimTest} builds it: 64-byte line, 64 lanes, 128 DSP rows, the PPM
   * with its PPU (the default NPU's PPM latency).
   */
  static MachineParams edge64Structure() {
    return MachineParams.builder().rows(64).lineBytes(64).spadBytes(256 * 1024).spadBanks(16).extMemBytes(16L << 20)
        .mTile(16).accWidth(32).icAccumDepth(0).maxM(64).maxK(512).maxN(128).memLatency(100).memBytesPerCycle(64)
        .watchdogCycles(1 << 20).dsp(new MachineParams.DspParams(64, 128, 512, 12, 2, 1L << 24, 4))
        .ppmLatency(NpuTargets.defaultNpu().ppmLatency()).ppu(true).build();
  }

  /**
   * stories260K on a 64-byte line with 64 lanes and 128 DSP rows (edge-64's structure, cosim's {@code Edge64CosimTest}
   * NPU), unfused and at {@code --fusion full}: the layer vectors and DSP programs start on lines, the padded K halves
   * are joined through staging lines, and the P·V results of the odd KV heads (32 bytes into a line) are read with the
   * columns before them and moved down (at full, the batched attention's runs of heads). Golden = cost model on every
   * counter, and the logits equal the default NPU's (16-byte line, 16 lanes) at the same fusion level bit for bit.
   */
  @ParameterizedTest
  @CsvSource({"none", "full"})
  void onASixtyFourByteLineTheLogitsAreTheDefaultNpus(String fusion) throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    ModelConfig c = w.config();
    MachineParams m = edge64Structure();
    LoweredModel model = new LoweredModel(w, m, CONTEXT, 8);
    Fusion f = Fusion.parse(fusion);
    int block = DecoderLowering.largestBlock(model, 16, f);
    int[] six = {1, 403, 407, 261, 378, 301};
    NpuDecoder npu = new NpuDecoder(model, block, NpuEngine.GOLDEN, f);
    NpuDecoder.Step pre = npu.prefill(java.util.Arrays.copyOf(six, 5), false);
    NpuDecoder.Step dec = npu.decode(six[5]);
    PhaseCostModel cost = new PhaseCostModel(c, m, CONTEXT, block, false, 8, 0, org.llmnpu.isa.Command.DENSE, -1, f);
    PhaseCostModelTest.assertEveryCounterEqual(pre, cost.step(5, 0, c.layers()));
    PhaseCostModelTest.assertEveryCounterEqual(dec, cost.step(1, 5, c.layers()));
    NpuDecoder reference = new NpuDecoder(new LoweredModel(w, NpuTargets.defaultNpu(), CONTEXT, 8), 8,
        NpuEngine.GOLDEN, f);
    float[][] expected = reference.prefill(six, true).logits();
    NpuDecoder whole = new NpuDecoder(model, block, NpuEngine.GOLDEN, f);
    float[][] got = whole.prefill(six, true).logits();
    for (int i = 0; i < six.length; i++) {
      assertArrayEquals(expected[i], got[i], "position " + i);
    }
    assertArrayEquals(expected[5], dec.logits()[0], "the decode step");
    System.out.printf("64-byte line, 64 lanes, fusion %s, block %d: prefill %,d cycles, decode %,d%n", fusion, block,
        pre.counter(org.llmnpu.isa.Counter.CYCLES), dec.counter(org.llmnpu.isa.Counter.CYCLES));
  }
}
