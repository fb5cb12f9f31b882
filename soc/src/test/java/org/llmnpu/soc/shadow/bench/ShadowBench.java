package org.llmnpu.soc.shadow.bench;

import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.soc.shadow.ShadowPipeline;
import org.llmnpu.soc.shadow.ShadowStudy;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.lower.NpuEngine;
import org.llmnpu.sw.lower.NpuTargets;
import org.llmnpu.sw.model.Transformer;
import org.llmnpu.sw.shadow.Scorer;
import org.llmnpu.sw.shadow.ShadowEvaluation;
import org.llmnpu.sw.shadow.SparsityProfile;

/**
 * ShadowNPU's figures on stories260K (real weights) at its full context of 512 tokens, 4 profiling and 4 held-out
 * sequences: accuracy per attention over the attention-mass share each head keeps; the scale-bucket sweep (bucket
 * count × step: accuracy, graphs, and the estimation's cost in the LLaMA-2-7B pipeline); the head-wise pipeline's
 * latency on sd8gen3 for stories260K and LLaMA-2-7B. Run with {@code mvn -q -o -pl soc -am test -Dbench
 * -Dtest=ShadowBench -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class ShadowBench {
  private static Transformer stories() throws Exception {
    return new Transformer(ModelCatalog.load("stories260K", 42));
  }

  private static ShadowEvaluation.Settings settings(double mass, int buckets, double step) {
    return new ShadowEvaluation.Settings(512, 4, 4, mass, 8, buckets, step, 64);
  }

  @Test
  void accuracyByAttentionMassShare() throws Exception {
    Transformer m = stories();
    System.out.println("stories260K, context 512, 4 held-out sequences (2044 positions); 8 scale buckets, step 1.25;"
        + " scores of the estimation programs on the golden ISA simulator (default NPU)");
    System.out.println("mass share | mean keep | top-k recall | top-1 dense / full INT8 / shadow | agreement full INT8"
        + " / shadow | KL full INT8 / shadow | NPU cycles per prefill");
    ShadowEvaluation.HeldOut held = null;
    for (double mass : new double[] {0.9, 0.95, 0.98, 0.99, 0.995}) {
      ShadowEvaluation.Settings s = settings(mass, 8, 1.25);
      if (held == null) {
        held = ShadowEvaluation.heldOut(m, s);
      }
      SparsityProfile p = ShadowEvaluation.profile(m, s);
      long[] cycles = new long[1];
      MachineParams npu = NpuTargets.defaultNpu();
      ShadowEvaluation.Result r = ShadowEvaluation.run(m, s, p, held, Scorer.npu(npu, NpuEngine.GOLDEN, cycles));
      System.out.printf(Locale.ROOT, "%.3f | %.3f | %.4f | %.4f / %.4f / %.4f | %.4f / %.4f | %.4f / %.4f | %d%n", mass,
          p.meanKeepRatio(), r.topkRecall(), r.dense().top1(), r.int8Full().top1(), r.shadow().top1(),
          r.int8Full().agreement(), r.shadow().agreement(), r.int8Full().kl(), r.shadow().kl(),
          cycles[0] / (2L * s.evaluationSequences()));
    }
  }

  @Test
  void scaleBucketSweep() throws Exception {
    Transformer m = stories();
    ShadowPipeline pipe = ShadowStudy.pipeline("sd8gen3");
    System.out.println("stories260K, context 512, mass share 0.99, 4 held-out sequences; LLaMA-2-7B pipeline at 1024"
        + " tokens on sd8gen3 with the graphs per head measured here");
    System.out.println("buckets | step | recall | shadow top-1 | shadow agreement | shadow KL | full INT8 agreement |"
        + " graphs offline | graphs per layer (of 8 heads) | LLaMA-2-7B NPU estimation ms, a program a head / merged | out-of-order ms");
    ShadowEvaluation.HeldOut held = null;
    SparsityProfile p = null;
    for (int buckets : new int[] {0, 1, 2, 4, 8, 16}) {
      for (double step : buckets == 0 ? new double[] {2.0} : new double[] {1.1, 1.25, 1.5, 2.0, 4.0}) {
        ShadowEvaluation.Settings s = settings(0.99, buckets, step);
        if (held == null) {
          held = ShadowEvaluation.heldOut(m, s);
          p = ShadowEvaluation.profile(m, s);
        }
        ShadowEvaluation.Result r = ShadowEvaluation.run(m, s, p, held, Scorer.REFERENCE);
        ShadowPipeline.Result big = ShadowStudy.llama2(pipe, p, 8, r.graphsPerLayer() / 8, 1024);
        System.out.printf(Locale.ROOT, "%s | %s | %.4f | %.4f | %.4f | %.4f | %.4f | %d | %.2f | %.3f / %.3f | %.2f%n",
            buckets == 0 ? "own" : Integer.toString(buckets), buckets == 0 ? "-" : String.format(Locale.ROOT, "%.2f", step),
            r.topkRecall(), r.shadow().top1(), r.shadow().agreement(), r.shadow().kl(), r.int8Full().agreement(),
            r.graphsOffline(), r.graphsPerLayer(), 1e3 * big.estimationS(), 1e3 * big.mergedEstimationS(),
            1e3 * big.outOfOrderS());
      }
    }
  }

  @Test
  void pipelineLatency() throws Exception {
    ShadowPipeline pipe = ShadowStudy.pipeline("sd8gen3");
    Transformer m = stories();
    ShadowEvaluation.Settings s = settings(0.99, 8, 1.25);
    SparsityProfile p = ShadowEvaluation.profile(m, s);
    System.out.printf(Locale.ROOT, "sd8gen3 (edge-64 NPU on the cycle model, CPU roofline); keep: stories260K's "
        + "profile at mass share 0.99 (mean %.3f of the context), LLaMA-2-7B with 4 estimation graphs a layer; attention of all layers of a prefill%n",
        p.meanKeepRatio());
    System.out.println("model | keep | context | serial ms | head-wise ms | merged ms | out-of-order ms | dense FP32 CPU ms |"
        + " dense INT8 NPU ms | vs dense CPU | vs dense NPU | programs a layer head-wise / merged");
    ShadowEvaluation.HeldOut held = ShadowEvaluation.heldOut(m, s);
    int[][] graphs = ShadowStudy.graphs(m, s, p, held.tokens()[0]);
    for (int ctx : new int[] {128, 256, 512}) {
      row(ShadowStudy.modelPipeline(pipe, "stories260K", m.config(), p, graphs, ctx), "profiled");
    }
    for (double keep : new double[] {p.meanKeepRatio(), 0.1, 0.05}) {
      for (int ctx : new int[] {512, 1024, 2048, 4096}) {
        row(ShadowStudy.llama2(pipe, keep, 8, 4 / 32.0, ctx), String.format(Locale.ROOT, "%.3f%s", keep,
            keep == p.meanKeepRatio() ? " (stories260K's mean)" : " (assumed)"));
      }
    }
  }

  private static void row(ShadowPipeline.Result r, String keep) {
    System.out.printf(Locale.ROOT, "%s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.2fx | %.2fx | %d / %d%n",
        r.model(), keep, r.context(), 1e3 * r.serialS(), 1e3 * r.headwiseS(), 1e3 * r.mergedS(), 1e3 * r.outOfOrderS(),
        1e3 * r.denseCpuS(), 1e3 * r.denseNpuS(), r.speedupVsDenseCpu(), r.speedupVsDenseNpu(), r.headPrograms(),
        r.mergedPrograms());
  }
}
