package org.llmnpu.sw.shadow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.io.Llama2cCheckpoint;
import org.llmnpu.sw.lower.NpuEngine;
import org.llmnpu.sw.lower.NpuTargets;
import org.llmnpu.sw.model.Transformer;

/** ShadowNPU's prefill on stories260K (real weights): dense = the reference, NPU scores = Java scores, the profile. */
class ShadowPrefillTest {
  private static Transformer stories() throws Exception {
    return new Transformer(Llama2cCheckpoint.readBundled("stories260K"));
  }

  @Test
  void denseIsTheReferenceForwardAndFullKeepIsDense() throws Exception {
    Transformer m = stories();
    int[] seq = SampledSequences.sample(m, 1, 96, 5)[0];
    float[][] ref = m.forwardAll(seq, m.newCache(seq.length));
    ShadowPrefill.Result dense = ShadowPrefill.run(m, seq, ShadowPrefill.Options.dense());
    for (int t = 0; t < seq.length; t++) {
      assertArrayEquals(ref[t], dense.logits()[t], 0f, "position " + t);
    }
    double[][] all = new double[m.config().layers()][m.config().heads()];
    for (double[] r : all) {
      java.util.Arrays.fill(r, 1.0);
    }
    SparsityProfile keepAll = new SparsityProfile(1.0, 1, 0.1, 0.1, all);
    ShadowPrefill.Result shadow = ShadowPrefill.run(m, seq, new ShadowPrefill.Options(ShadowPrefill.Mode.SHADOW,
        ScaleBuckets.dynamic(), ScaleBuckets.dynamic(), keepAll, Scorer.REFERENCE, null, null));
    for (int t = 0; t < seq.length; t++) {
      assertArrayEquals(ref[t], shadow.logits()[t], 1e-5f, "keeping every token is dense attention, position " + t);
    }
    assertEquals(0, shadow.recallTotal());
  }

  @Test
  void theNpuProgramsScoresGiveTheSameRunAsJavasAndRaggedContextsPadToTheirShapeBucket(@TempDir Path dir)
      throws Exception {
    Transformer m = stories();
    ShadowEvaluation.Settings s = new ShadowEvaluation.Settings(72, 1, 1, 0.9, 4, 4, 1.5, 64);
    SparsityProfile profile = ShadowEvaluation.profile(m, s);
    int[] seq = SampledSequences.sample(m, 1, 72, 9)[0];
    ScaleBuckets qb = new ScaleBuckets(4, 1.5, profile.qScaleMedian());
    ScaleBuckets kb = new ScaleBuckets(4, 1.5, profile.kScaleMedian());
    MachineParams p = NpuTargets.defaultNpu();
    long[] cycles = new long[1];
    ShadowPrefill.Options java = new ShadowPrefill.Options(ShadowPrefill.Mode.SHADOW, qb, kb, profile,
        Scorer.REFERENCE, new ShapeBuckets(64, 512), null);
    ShadowPrefill.Options npu = new ShadowPrefill.Options(ShadowPrefill.Mode.SHADOW, qb, kb, profile,
        Scorer.npu(p, NpuEngine.GOLDEN, cycles), new ShapeBuckets(64, 512), null);
    ShadowPrefill.Result a = ShadowPrefill.run(m, seq, java);
    ShadowPrefill.Result b = ShadowPrefill.run(m, seq, npu);
    for (int t = 0; t < seq.length; t++) {
      assertArrayEquals(a.logits()[t], b.logits()[t], 0f);
    }
    assertEquals(a.recallHits(), b.recallHits());
    assertTrue(a.recallTotal() > 0 && a.recall() > 0.5, "recall " + a.recall());
    assertTrue(cycles[0] > 0);
    Path file = dir.resolve("profile.json");
    profile.write(file);
    SparsityProfile back = SparsityProfile.read(file, m.config());
    assertEquals(profile.massShare(), back.massShare());
    assertArrayEquals(profile.keepRatio()[4], back.keepRatio()[4]);
    assertTrue(Files.readString(file).contains("keepRatio"));
  }
}
