package org.llmnpu.sw.shadow;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.llmnpu.sw.eval.LogitComparison;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.Ops;
import org.llmnpu.sw.model.Transformer;

/**
 * ShadowNPU's accuracy study on a model: per-head sparsity profiled on calibration text (seeds
 * {@link SampledSequences#CALIBRATION_SEED}…), evaluated on held-out text (seeds
 * {@link SampledSequences#EVALUATION_SEED}…) sampled from the FP32 model at {@code context} tokens. For each
 * attention — dense FP32, full INT8, INT8 estimation + FP32 sparse (ShadowNPU) — the next-token top-1 accuracy on
 * the held-out text, and against the FP32 model's logits the top-1 agreement and KL; the recall of the true
 * top-{@code k} by the INT8 estimate; the graphs the buckets need.
 */
public final class ShadowEvaluation {
  /** What to evaluate. */
  public record Settings(int context, int calibrationSequences, int evaluationSequences, double massShare,
                         int minKeep, int scaleBuckets, double scaleStep, int shapeStep) {
    public Settings {
      if (calibrationSequences < 1 || evaluationSequences < 1) {
        throw new IllegalArgumentException("need at least one calibration and one evaluation sequence");
      }
    }

    public static Settings defaults(ModelConfig c) {
      return new Settings(c.maxSeqLen(), 4, 4, 0.9, 8, 8, 1.25, 64);
    }
  }

  /** One attention's accuracy: next-token top-1 on the text; top-1 agreement and KL against FP32. */
  public record Accuracy(double top1, double agreement, double kl) {
  }

  /**
   * The study's figures. {@code graphsOffline}: estimation programs built (Q buckets × K buckets × shapes);
   * {@code graphsPerLayer}: distinct (Q bucket, K bucket) pairs a layer's heads use, averaged — the NPU programs a
   * layer needs after merging the tasks that share one.
   */
  public record Result(Settings settings, SparsityProfile profile, Accuracy dense, Accuracy int8Full,
                       Accuracy shadow, double topkRecall, int graphsOffline, double graphsPerLayer) {
  }

  private ShadowEvaluation() {
  }

  public static SparsityProfile profile(Transformer model, Settings s) {
    int[][] cal = SampledSequences.sample(model, s.calibrationSequences(), s.context(), SampledSequences.CALIBRATION_SEED);
    return SparsityProfile.profile(model, cal, s.massShare(), s.minKeep());
  }

  /** Held-out sequences and their FP32 (dense) logits. */
  public record HeldOut(int[][] tokens, float[][][] denseLogits) {
  }

  public static HeldOut heldOut(Transformer model, Settings s) {
    int[][] seqs = SampledSequences.sample(model, s.evaluationSequences(), s.context(), SampledSequences.EVALUATION_SEED);
    float[][][] logits = new float[seqs.length][][];
    for (int i = 0; i < seqs.length; i++) {
      logits[i] = ShadowPrefill.run(model, seqs[i], ShadowPrefill.Options.dense()).logits();
    }
    return new HeldOut(seqs, logits);
  }

  /** The whole study with the estimation scores from {@code scorer}. */
  public static Result run(Transformer model, Settings s, SparsityProfile profile, HeldOut held, Scorer scorer) {
    ScaleBuckets qb = s.scaleBuckets() == 0 ? ScaleBuckets.dynamic()
        : new ScaleBuckets(s.scaleBuckets(), s.scaleStep(), profile.qScaleMedian());
    ScaleBuckets kb = s.scaleBuckets() == 0 ? ScaleBuckets.dynamic()
        : new ScaleBuckets(s.scaleBuckets(), s.scaleStep(), profile.kScaleMedian());
    ShapeBuckets shapes = new ShapeBuckets(s.shapeStep(), model.config().maxSeqLen());
    ShadowPrefill.Options shadow = new ShadowPrefill.Options(ShadowPrefill.Mode.SHADOW, qb, kb, profile, scorer, shapes, null);
    ShadowPrefill.Options int8 = new ShadowPrefill.Options(ShadowPrefill.Mode.INT8_FULL, qb, kb, profile, scorer, shapes, null);
    List<float[][]> ref = new ArrayList<>();
    List<float[][]> sh = new ArrayList<>();
    List<float[][]> i8 = new ArrayList<>();
    long hits = 0;
    long total = 0;
    long graphs = 0;
    long layers = 0;
    ModelConfig c = model.config();
    for (int i = 0; i < held.tokens().length; i++) {
      ref.add(held.denseLogits()[i]);
      ShadowPrefill.Result r = ShadowPrefill.run(model, held.tokens()[i], shadow);
      sh.add(r.logits());
      hits += r.recallHits();
      total += r.recallTotal();
      i8.add(ShadowPrefill.run(model, held.tokens()[i], int8).logits());
      for (int l = 0; l < c.layers(); l++) {
        Set<Long> used = new HashSet<>();
        for (int h = 0; h < c.heads(); h++) {
          used.add(qb.nearest(r.qScales()[l][h]) * 4096L + kb.nearest(r.kScales()[l][h / c.groupSize()]));
        }
        graphs += qb.isDynamic() ? c.kvHeads() : used.size();
        layers++;
      }
    }
    int offline = (qb.isDynamic() ? 1 : qb.count() * kb.count()) * shapes.count();
    return new Result(s, profile, accuracy(held, ref, ref), accuracy(held, ref, i8), accuracy(held, ref, sh),
        total == 0 ? 1.0 : hits / (double) total, offline, graphs / (double) layers);
  }

  private static Accuracy accuracy(HeldOut held, List<float[][]> ref, List<float[][]> test) {
    int right = 0;
    int positions = 0;
    List<float[]> r = new ArrayList<>();
    List<float[]> t = new ArrayList<>();
    for (int i = 0; i < ref.size(); i++) {
      int[] tokens = held.tokens()[i];
      for (int pos = 0; pos + 1 < tokens.length; pos++) {
        right += Ops.argmax(test.get(i)[pos]) == tokens[pos + 1] ? 1 : 0;
        positions++;
        r.add(ref.get(i)[pos]);
        t.add(test.get(i)[pos]);
      }
    }
    LogitComparison cmp = LogitComparison.compare(r.toArray(new float[0][]), t.toArray(new float[0][]));
    return new Accuracy(right / (double) positions, cmp.top1Agreement(), cmp.klDivergence());
  }
}
