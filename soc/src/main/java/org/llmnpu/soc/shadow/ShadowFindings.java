package org.llmnpu.soc.shadow;

import java.util.List;
import java.util.Locale;
import org.llmnpu.soc.StageFindings;
import org.llmnpu.sw.shadow.ShadowEvaluation;

/**
 * ShadowNPU's findings (seed 000) next to ours: full INT8 attention's accuracy loss, the INT8 estimate's top-k
 * recall, the accuracy of INT8 estimation + FP32 sparse attention, and the pipeline against dense attention on the
 * CPU. "Agrees" is computed from our figures against the stated threshold.
 */
public final class ShadowFindings {
  private ShadowFindings() {
  }

  public static List<StageFindings.Finding> of(ShadowStudy.Result r) {
    ShadowEvaluation.Result a = r.accuracy();
    double int8Loss = 100 * (a.dense().top1() - a.int8Full().top1());
    double shadowLoss = 100 * (a.dense().top1() - a.shadow().top1());
    double speedup = r.pipeline().speedupVsDenseCpu();
    double bigSpeedup = r.large().speedupVsDenseCpu();
    String model = r.model() + " at " + a.settings().context() + " tokens";
    return List.of(
        new StageFindings.Finding("shadow-full-int8-attention",
            String.format(Locale.ROOT, "%.1f points of top-1 (%s; agreement with FP32 %.1f %%, KL %.4f)", int8Loss,
                model, 100 * a.int8Full().agreement(), a.int8Full().kl()),
            int8Loss, "full INT8 attention on the NPU loses ≈ 18 points on average", int8Loss >= 5,
            int8Loss >= 5 ? "INT8 scores and probabilities lose the attention's detail"
                : "a 260K model cannot show it: 8-wide heads quantize well per head (INT8 of 8 values), its attention "
                + "is diffuse (no few tokens whose small error matters) and its top-1 accuracy is low to begin with"),
        new StageFindings.Finding("shadow-topk-recall",
            String.format(Locale.ROOT, "top-k recall %.4f (per-head k, %.1f %% of the mass)", a.topkRecall(),
                100 * a.settings().massShare()), a.topkRecall(), "INT8 estimation of importance is accurate", a.topkRecall() >= 0.9,
            "ranking needs only the order of the scores, which INT8 Q·Kᵀ keeps"),
        new StageFindings.Finding("shadow-sparse-attention-accuracy",
            String.format(Locale.ROOT, "%.1f points of top-1 below dense (agreement %.1f %%, KL %.4f; keeps %.1f %% of "
                + "the tokens)", shadowLoss, 100 * a.shadow().agreement(), a.shadow().kl(),
                100 * a.profile().meanKeepRatio()), shadowLoss, "INT8 estimation + FP sparse attention close to dense FP", shadowLoss <= 2,
            "the dropped tokens hold " + String.format(Locale.ROOT, "%.1f", 100 * (1 - a.settings().massShare()))
                + " % of each head's mass; stories260K's diffuse attention needs a high share (its agreement with FP32 "
                + "is below full INT8's)"),
        new StageFindings.Finding("shadow-pipeline-vs-dense",
            String.format(Locale.ROOT, "%.2fx (%s), %.2fx (LLaMA-2-7B at %d tokens) on %s", speedup, r.model(),
                bigSpeedup, r.large().context(), r.preset()), speedup, "NPU-centric sparse attention faster than attention on the CPU/GPU",
            speedup > 1 && bigSpeedup > 1,
            "the CPU's work shrinks to the kept tokens while the NPU estimates the next heads; the CPU's sparse "
                + "attention bounds it (head-wise pipelining hides the NPU)"));
  }
}
