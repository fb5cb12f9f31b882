package org.llmnpu.cosim.shadow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.llmnpu.cosim.NpuRtl;
import org.llmnpu.cosim.ProgramCosim;
import org.llmnpu.cosim.WaveCapture;
import org.llmnpu.isa.Counter;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.io.Llama2cCheckpoint;
import org.llmnpu.sw.lower.NpuEngine;
import org.llmnpu.sw.model.Transformer;
import org.llmnpu.sw.shadow.ScaleBuckets;
import org.llmnpu.sw.shadow.Scorer;
import org.llmnpu.sw.shadow.ShadowEvaluation;
import org.llmnpu.sw.shadow.ShadowPrefill;
import org.llmnpu.sw.shadow.ShapeBuckets;
import org.llmnpu.sw.shadow.SparsityProfile;

/**
 * ShadowNPU's estimation programs on the default NPU's RTL (Verilator), in a stories260K prefill with real weights:
 * every layer's program is bit-exact with the golden ISA simulator (the whole memory image, the status, every
 * counter) and takes the cycle model's cycles, and the prefill's logits equal those from Java's INT8 dot products.
 */
class ShadowEstimationCosimTest {
  @Test
  void everyLayersEstimationProgramIsBitExactAndTakesTheModelsCyclesOnTheRtl() throws Exception {
    Transformer m = new Transformer(Llama2cCheckpoint.readBundled("stories260K"));
    ShadowEvaluation.Settings s = new ShadowEvaluation.Settings(72, 1, 1, 0.9, 4, 4, 1.5, 64);
    SparsityProfile profile = ShadowEvaluation.profile(m, s);
    int[] seq = SampledSequences.sample(m, 1, 72, 11)[0];
    ScaleBuckets qb = new ScaleBuckets(4, 1.5, profile.qScaleMedian());
    ScaleBuckets kb = new ScaleBuckets(4, 1.5, profile.kScaleMedian());
    NpuConfig config = NpuConfig.defaults();
    List<ProgramCosim.Outcome> outcomes = new ArrayList<>();
    long[] cycles = new long[1];
    try (NpuRtl rtl = NpuRtl.start(config, WaveCapture.none().options())) {
      NpuEngine onRtl = (machine, image, programAddress, label) -> {
        ProgramCosim.Outcome o = ProgramCosim.run(rtl, image, programAddress);
        outcomes.add(o);
        return new NpuEngine.Run(o.rtl().memory(), o.golden().counters(), o.rtl().error(), o.rtl().errorCommand());
      };
      ShadowPrefill.Result viaRtl = ShadowPrefill.run(m, seq, new ShadowPrefill.Options(ShadowPrefill.Mode.SHADOW,
          qb, kb, profile, Scorer.npu(config.machine(), onRtl, cycles), new ShapeBuckets(64, 512), null));
      ShadowPrefill.Result viaJava = ShadowPrefill.run(m, seq, new ShadowPrefill.Options(ShadowPrefill.Mode.SHADOW,
          qb, kb, profile, Scorer.REFERENCE, new ShapeBuckets(64, 512), null));
      assertEquals(m.config().layers(), outcomes.size());
      for (ProgramCosim.Outcome o : outcomes) {
        assertTrue(o.bitExact(), "first difference at 0x" + Long.toHexString(o.firstDifference()));
        assertTrue(o.statusMatches());
        assertTrue(o.counterMismatches().isEmpty(), "counters " + o.counterMismatches().keySet());
        assertEquals(o.modelCycles(), o.rtlCycles());
        assertTrue(o.rtl().counters().get(Counter.MACS) > 0);
      }
      for (int t = 0; t < seq.length; t++) {
        assertArrayEquals(viaJava.logits()[t], viaRtl.logits()[t], 0f, "position " + t);
      }
      assertEquals(viaJava.recallHits(), viaRtl.recallHits());
      assertTrue(cycles[0] > 0);
    }
  }
}
