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
 * Vector DSPs wider than the array (64 and 128 lanes beside a 16×16 array, wider than a 16-byte line's 8 FP16 elements)
 * on the fused prefill with two token blocks woven ({@link PrefillOrder.Weave#GATED}, PPM gate, kept X), as
 * {@code DspSizeWhatIfBench} asks of LLaMA-2-7B on edge-64 at 128 lanes: the woven program gives the logits of one block
 * at a time bit for bit, and the cost model's counters are the golden simulator's. Shapes: a LLaMA-2-7B-like one (head
 * dim 128, so 128 lanes exceed a RoPE half of 64 as on the 7B; FFN 344 = 11008/32, ragged against 128 lanes); and
 * stories260K (heads·half 32: ragged against 64 and 128 lanes), whose lowering pads the q/k halves to whole DSP rows
 * (more QKV MACs), as the walk does since 2026-12-07 ({@code PhaseWalk#qSpan}).
 *
 * <p>The extrapolated walk, which the 7B estimate takes, equals the golden on every counter in the woven order
 * (2026-12-07: 292,592 cycles on the 7B-like shape at s2_4, 128 lanes; 505,525 on stories260K at 128 lanes, where the
 * walk was one command short, +0.16 %, until it shared the two K chunks' partial sums as the lowering's one program).
 */
class WideDspTest {
  /** The two-block test NPU for {@code format} with kept X and the PPM gate, its DSP {@code lanes} wide (1,024 rows). */
  static MachineParams wide(String format, int lanes, boolean permute) {
    MachineParams m = BlockInterleaverTest.twoBlockNpu(format).withPpmGate(true).withXKeep(true);
    MachineParams.DspParams d = m.dsp();
    return m.withDsp(new MachineParams.DspParams(lanes, Math.max(1024, (int) (d.elements() / lanes)), d.programDepth(),
        d.tableSegments(), d.tableDegree(), d.maxRunCycles(), d.executeStages(), permute));
  }

  private static final PrefillOrder WOVEN = new PrefillOrder(true, true, false, true, true, PrefillOrder.Weave.GATED);

  @ParameterizedTest
  // the 7B-like shape at s2_4 with permutations (int8 at 128 lanes is stories260K's case; the 7B-like int8 case cost ~50 s)
  @CsvSource({"sevenB, s2_4, 128, true, true", "stories260K, int8, 128, false, true"})
  void wovenPrefillOnAWideDspIsExact(String shape, String format, int lanes, boolean permute, boolean walkNear)
      throws Exception {
    ModelWeights w = shape.equals("sevenB") ? SyntheticWeights.generate(new ModelConfig(256, 344, 2, 2, 2, 64, 64), 3)
        : ModelCatalog.load("stories260K", 1);
    MachineParams m = wide(format, lanes, permute);
    int context = shape.equals("sevenB") ? 32 : 48;
    int block = 8;
    int[] prompt = BlockInterleaverTest.prompt(24, w.config().vocabSize(), 7);
    LoweredModel model = WeightFormats.lower(w, format, m, context, 2 * m.maxM());
    NpuDecoder one = new NpuDecoder(model, block, NpuEngine.GOLDEN, Fusion.FULL);
    NpuDecoder woven = new NpuDecoder(model, block, NpuEngine.GOLDEN, Fusion.FULL);
    woven.lowering().order(WOVEN);
    NpuDecoder.Step s = one.prefill(prompt, true);
    NpuDecoder.Step i = woven.prefill(prompt, true);
    assertTrue(woven.lowering().twoBlocksInFlight(), woven.lowering().twoBlocksWhyNot());
    for (int t = 0; t < s.logits().length; t++) {
      assertArrayEquals(s.logits()[t], i.logits()[t], "logits of token " + t);
    }
    NpuDecoder last = new NpuDecoder(model, block, NpuEngine.GOLDEN, Fusion.FULL);
    last.lowering().order(WOVEN);
    NpuDecoder.Step golden = last.prefill(prompt, false);
    PhaseCostModel cost = PhaseCostModel.forFormat(w.config(), m, context, block, format, Fusion.FULL).order(WOVEN);
    PhaseCostModelTest.assertEveryCounterEqual(golden, cost.step(prompt.length, 0, w.config().layers()));
    PhaseCost walked = new PhaseCostModel(w.config(), m, context, block, true, WeightFormats.bits(format),
        WeightFormats.group(format), WeightFormats.sparsity(format), WeightFormats.mx(format), Fusion.FULL).order(WOVEN)
        .step(prompt.length, 0, w.config().layers());
    System.out.printf("wide DSP %s %s %d lanes%s: one block %,d cycles, woven %,d, walk %,d%n", shape, format, lanes,
        permute ? " permute" : "", s.counter(Counter.CYCLES), golden.counter(Counter.CYCLES), walked.cycles());
    if (walkNear) {
      // the walk's counters against the golden's: equal
      StringBuilder d = new StringBuilder();
      for (Counter k : Counter.values()) {
        if (golden.counter(k) != walked.counter(k)) {
          d.append(' ').append(k.key()).append(' ').append(golden.counter(k)).append(" != ").append(walked.counter(k));
        }
      }
      System.out.println("  the walk's counters that differ from the golden's:" + d);
      assertEquals("", d.toString(), "the walk's counters against the golden's");
    } else {
      assertTrue(walked.counter(Counter.MACS) < golden.counter(Counter.MACS), "the walk leaves out the q/k padding");
    }
  }

  /**
   * Head-major K rows written straight out of the DSP ({@link KeyRows}, {@link BatchedAttentionLayout#directKeys}: a
   * RoPE half whole lines), the layout the 7B estimate's walk takes: on the 7B-like shape at 64 lanes (the edge-64 DSP;
   * a half of 64 codes is four 16-byte lines) and at 128 lanes (a half is half a DSP row), and on a GQA shape of
   * stories260K's dim and FFN (two query heads over one KV head of 32) on the default NPU, one block of 8 tokens at
   * {@code --fusion full} and a decode step: the logits equal {@code --fusion vertical}'s (flat K rows, scores over
   * kvDim, one K chunk: the same integer dot products) bit for bit, and the lowering's cost model is the golden's on
   * every counter. The walk against the lowering in the woven order (two blocks of 8 tokens, the 7B estimate's order;
   * blocks of 8 and 5) and a decode step after it: every counter equal. (The walk once took single-token RMSNorm runs,
   * the K pairs' and the odd block's K unpacking runs as programs that move from token to token: on these shapes, whose
   * feed-forward goes a token at a time, the lowering's are one program, so the walk ran a form's second run plain: 2
   * commands fewer, DSP cycles +420.)
   */
  @ParameterizedTest
  @CsvSource({"sevenB, 64", "sevenB, 128", "gqa, 16"})
  void directHeadMajorKeysAreExact(String shape, int lanes) throws Exception {
    ModelConfig c = shape.equals("sevenB") ? new ModelConfig(256, 344, 2, 2, 2, 64, 64)
        : new ModelConfig(64, 172, 2, 2, 1, 64, 64);
    ModelWeights w = SyntheticWeights.generate(c, 5);
    MachineParams d = NpuTargets.defaultNpu();
    MachineParams m = lanes == d.dsp().lanes() ? d : d.withDsp(new MachineParams.DspParams(lanes,
        Math.max(1024, (int) (d.dsp().elements() / lanes)), d.dsp().programDepth(), d.dsp().tableSegments(),
        d.dsp().tableDegree(), d.dsp().maxRunCycles(), d.dsp().executeStages()));
    assertTrue(BatchedAttentionLayout.headMajorKeys(c, m, KSplit.of(c.kvDim(), m.maxK(), m.maxK()))
        && BatchedAttentionLayout.directKeys(c, m), "direct head-major keys on " + shape);
    int context = 24;
    int block = 8;
    int[] prompt = BlockInterleaverTest.prompt(block, c.vocabSize(), 11);
    LoweredModel model = WeightFormats.lower(w, "int8", m, context, block);
    NpuDecoder none = new NpuDecoder(model, block, NpuEngine.GOLDEN, Fusion.VERTICAL);
    NpuDecoder full = new NpuDecoder(model, block, NpuEngine.GOLDEN, Fusion.FULL);
    NpuDecoder.Step p1 = full.prefill(prompt, false);
    assertArrayEquals(none.prefill(prompt, false).logits()[0], p1.logits()[0], "the block's last logits");
    NpuDecoder.Step d1 = full.decode(prompt[3]);
    assertArrayEquals(none.decode(prompt[3]).logits()[0], d1.logits()[0], "the decode step's logits");
    PhaseCostModel cost = PhaseCostModel.forFormat(c, m, context, block, "int8", Fusion.FULL);
    PhaseCostModelTest.assertEveryCounterEqual(p1, cost.step(block, 0, c.layers()));
    PhaseCostModelTest.assertEveryCounterEqual(d1, cost.step(1, block, c.layers()));
    // the walk against the lowering in the woven order the 7B estimate takes (two blocks of 8, the PPM gate, kept X)
    MachineParams two = wide("int8", lanes, false);
    PhaseCostModel lowering = new PhaseCostModel(c, two, context, block, false, 8, 0, org.llmnpu.isa.Command.DENSE, -1,
        Fusion.FULL).order(WOVEN);
    PhaseCostModel walk = new PhaseCostModel(c, two, context, block, true, 8, 0, org.llmnpu.isa.Command.DENSE, -1,
        Fusion.FULL).order(WOVEN);
    // two blocks, a decode step, and blocks of 8 and 5 (an odd block: the lone K slot, Kᵀ's unpacking run)
    for (int[] step : new int[][] {{2 * block, 0}, {1, 2 * block}, {block + 5, 0}}) {
      PhaseCost lowered = lowering.step(step[0], step[1], c.layers());
      assertEquals("", lowering.twoBlocksWhyNot(), "two blocks fit the lowering");
      PhaseCost walked = walk.step(step[0], step[1], c.layers());
      System.out.printf("direct keys %s %d lanes, %d tokens at %d: lowering %,d cycles, walk %,d%n", shape, lanes,
          step[0], step[1], lowered.cycles(), walked.cycles());
      StringBuilder differ = new StringBuilder();
      for (Counter k : Counter.values()) {
        if (lowered.counter(k) != walked.counter(k)) {
          differ.append(' ').append(k.key()).append(' ').append(lowered.counter(k)).append(" != ")
              .append(walked.counter(k));
        }
      }
      System.out.println("  the walk's counters that differ from the lowering's:" + differ);
      assertEquals("", differ.toString(), "the walk's counters against the lowering's");
    }
  }
}
