package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelWeights;

/**
 * q, k and v quantized with calibrated static per-tensor scales ({@link DecoderLowering#staticQkv}) on stories260K at
 * {@code --fusion full}, golden ISA simulator: the quantization runs are static ones (fewer DSP instructions and cycles
 * than the absmax runs), the logits stay close to the dynamic path's, and the cost model (the lowering's command stream
 * and the extrapolated walk) equals the golden counters.
 */
class StaticQkvLoweringTest {
  private static final int[] PROMPT = FusedLoweringTest.PROMPT;

  static ModelWeights stories() {
    try {
      return ModelCatalog.load("stories260K", 1);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @ParameterizedTest
  @CsvSource({"int8, false", "int4, false", "s2_4, false", "int8, true"})
  void staticQkvScalesRunCheaperStayCloseAndTheCostModelFollows(String format, boolean gate) {
    ModelWeights w = stories();
    int layers = w.config().layers();
    MachineParams m = FusedLoweringTest.machine(format).withPpmGate(gate);
    NpuDecoder dynamic = new NpuDecoder(WeightFormats.lower(w, format, m, 24, 16), 6, NpuEngine.GOLDEN, Fusion.FULL);
    NpuDecoder statics = new NpuDecoder(WeightFormats.lower(w, format, m, 24, 16), 6, NpuEngine.GOLDEN, Fusion.FULL);
    statics.lowering().staticQkv(true);
    NpuDecoder.Step p0 = dynamic.prefill(PROMPT, false);
    NpuDecoder.Step p1 = statics.prefill(PROMPT, false);
    NpuDecoder.Step d0 = dynamic.decode(301);
    NpuDecoder.Step d1 = statics.decode(301);
    assertTrue(p1.counter(Counter.DSP_INSTRUCTIONS) < p0.counter(Counter.DSP_INSTRUCTIONS),
        p1.counter(Counter.DSP_INSTRUCTIONS) + " vs " + p0.counter(Counter.DSP_INSTRUCTIONS));
    assertTrue(p1.counter(Counter.CYCLES) < p0.counter(Counter.CYCLES), p1.counter(Counter.CYCLES) + " vs "
        + p0.counter(Counter.CYCLES));
    assertTrue(d1.counter(Counter.CYCLES) < d0.counter(Counter.CYCLES));
    System.out.printf("%s%s full, static q/k/v: prefill %d -> %d cycles, decode %d -> %d%n", format,
        gate ? "+gate" : "", p0.counter(Counter.CYCLES), p1.counter(Counter.CYCLES), d0.counter(Counter.CYCLES),
        d1.counter(Counter.CYCLES));
    assertNotEquals(java.util.Arrays.toString(p0.logits()[0]), java.util.Arrays.toString(p1.logits()[0]),
        "other scales, other codes");
    if (!format.equals("s2_4")) {
      PpmEpilogueLoweringTest.assertClose(p0.logits()[0], p1.logits()[0], 0.3);
      PpmEpilogueLoweringTest.assertClose(d0.logits()[0], d1.logits()[0], 0.3);
    }
    PhaseCostModel cost = PhaseCostModel.forFormat(w.config(), m, 24, 6, format, Fusion.FULL).staticQkv(true, false);
    PhaseCostModelTest.assertEveryCounterEqual(p1, cost.step(PROMPT.length, 0, layers));
    PhaseCostModelTest.assertEveryCounterEqual(d1, cost.step(1, PROMPT.length, layers));
  }

  /** The extrapolated walk (7B estimates) quantizes q, k and v as the lowering does: every counter equal. */
  @ParameterizedTest
  @CsvSource({"8, 0, 8, 0", "8, 0, 16, 0", "8, 0, 1, 16", "4, 0, 16, 0", "8, 1, 16, 0"})
  void theExtrapolatedWalkHasTheSameStaticQuantization(int bits, int sparsity, int tokens, int position) {
    ModelWeights w = stories();
    MachineParams m = sparsity == org.llmnpu.isa.Command.S2_4 ? NpuTargets.sparse24() : NpuTargets.defaultNpu();
    PhaseCostModel exact = new PhaseCostModel(w.config(), m, 18, 16, false, bits, 0, sparsity, -1, Fusion.FULL)
        .staticQkv(true, false);
    PhaseCostModel walk = new PhaseCostModel(w.config(), m, 18, 16, true, bits, 0, sparsity, -1, Fusion.FULL)
        .staticQkv(true, false);
    PhaseCost dynamic = new PhaseCostModel(w.config(), m, 18, 16, true, bits, 0, sparsity, -1, Fusion.FULL)
        .step(tokens, position, 5);
    PhaseCost e = exact.step(tokens, position, 5);
    assertEquals(e, walk.step(tokens, position, 5));
    assertTrue(e.counter(Counter.DSP_INSTRUCTIONS) < dynamic.counter(Counter.DSP_INSTRUCTIONS));
  }

  /**
   * The tile-by-tile QKV post ({@link TiledQkvPost}) in the walk on a shape of several QKV tiles of whole heads: the
   * same MACs and weight bytes as the per-token post with the same static scales; where a tile cannot hold whole heads
   * on whole DSP rows (stories260K with maxN 16) the walk keeps the per-token post.
   */
  @Test
  void theTiledQkvPostKeepsTheWorkAndFallsBackWhereTilesSplitHeads() {
    MachineParams m = NpuTargets.defaultNpu();
    org.llmnpu.sw.model.ModelConfig c = new org.llmnpu.sw.model.ModelConfig(256, 512, 2, 4, 2, 64, 64);
    PhaseCostModel perToken = new PhaseCostModel(c, m, 33, 16, true, 8, 0, 0, -1, Fusion.FULL).staticQkv(true, false);
    PhaseCostModel tiled = new PhaseCostModel(c, m, 33, 16, true, 8, 0, 0, -1, Fusion.FULL).staticQkv(true, true);
    assertTrue(tiled.qkvPostTiled(), "4 tiles of 128 columns, heads of 64");
    PhaseCost a = perToken.step(32, 0, 2);
    PhaseCost b = tiled.step(32, 0, 2);
    assertEquals(a.macs(), b.macs());
    assertEquals(a.counter(Counter.DMA_LOAD_BYTES), b.counter(Counter.DMA_LOAD_BYTES));
    System.out.printf("tiled QKV post, dim 256, 32 tokens: %d -> %d cycles%n", a.cycles(), b.cycles());
    ModelWeights w = stories();
    MachineParams narrow = TiledQkvPostTest.withMaxN(m, 16);
    PhaseCostModel storiesTiled = new PhaseCostModel(w.config(), narrow, 18, 16, true, 8, 0, 0, -1, Fusion.FULL)
        .staticQkv(true, true);
    assertTrue(!storiesTiled.qkvPostTiled());
    assertEquals(new PhaseCostModel(w.config(), narrow, 18, 16, true, 8, 0, 0, -1, Fusion.FULL).staticQkv(true, false)
        .step(16, 0, 5), storiesTiled.step(16, 0, 5));
  }

  /** The calibrated q, k and v scales: positive, per layer, and clipped (at most the calibration set's absmax/127). */
  @Test
  void qkvScalesAreCalibratedPerLayerAndClipped() {
    ModelWeights w = stories();
    StaticScales s = StaticScales.calibrate(w);
    int[][] sequences = org.llmnpu.sw.eval.SampledSequences.sample(new org.llmnpu.sw.model.Transformer(w),
        StaticScales.CALIBRATION_SEQUENCES, StaticScales.CALIBRATION_LENGTH,
        org.llmnpu.sw.eval.SampledSequences.CALIBRATION_SEED);
    double[][] absmax = new double[w.config().layers()][3];
    for (int[] seq : sequences) {
      QuantSiteForward.run(w, w.layers(), null, seq, (site, layer, x) -> {
        int i = site == QuantSiteForward.Site.Q ? 0 : site == QuantSiteForward.Site.K ? 1
            : site == QuantSiteForward.Site.V ? 2 : -1;
        for (float v : x) {
          if (i >= 0) {
            absmax[layer][i] = Math.max(absmax[layer][i], Math.abs(v));
          }
        }
        return x;
      });
    }
    StaticScales.Site[] sites = {StaticScales.Site.Q, StaticScales.Site.K, StaticScales.Site.V};
    for (int l = 0; l < w.config().layers(); l++) {
      for (int i = 0; i < 3; i++) {
        double scale = s.of(sites[i], l);
        assertTrue(scale > 0 && scale <= absmax[l][i] / 127 * (1 + 1e-12), sites[i] + " layer " + l + ": " + scale
            + " vs absmax/127 " + absmax[l][i] / 127);
      }
    }
    assertEquals(s.lines(), StaticScales.parse(s.lines(), w.config().layers()).lines());
  }
}
