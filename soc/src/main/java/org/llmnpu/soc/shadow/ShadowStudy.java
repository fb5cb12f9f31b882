package org.llmnpu.soc.shadow;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Locale;
import org.llmnpu.reports.estimate.EstimateTarget;
import org.llmnpu.soc.SocPreset;
import org.llmnpu.sw.estimate.ModelShapes;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.Transformer;
import org.llmnpu.sw.shadow.ShadowEvaluation;
import org.llmnpu.sw.shadow.ShadowPrefill;
import org.llmnpu.sw.shadow.ScaleBuckets;
import org.llmnpu.sw.shadow.SparsityProfile;

/**
 * What {@code npu sw shadow} computes: ShadowNPU's accuracy on a model with real weights ({@link ShadowEvaluation}:
 * scores on the golden NPU numerics) and its head-wise pipeline on a SoC preset ({@link ShadowPipeline}) for that
 * model at its full context and for LLaMA-2-7B's shape at {@code largeContext} tokens (keep ratio: the profiled
 * model's mean; estimation graphs per layer: its measured share of distinct graphs per head, scaled to 32 heads).
 * {@code speedupVsDense}: the out-of-order pipeline against dense FP32 attention on the CPU, for the model.
 */
public final class ShadowStudy {
  /** The study's figures. */
  public record Result(String model, String preset, ShadowEvaluation.Result accuracy, ShadowPipeline.Result pipeline,
                       ShadowPipeline.Result large) {
  }

  private ShadowStudy() {
  }

  public static Result run(String model, String presetName, ShadowEvaluation.Settings s, int largeContext)
      throws IOException {
    ShadowPipeline pipe = pipeline(presetName);
    Transformer m = new Transformer(ModelCatalog.load(model, 42));
    ModelConfig c = m.config();
    if (s.context() < SparsityProfile.FIRST_QUERY + 2 || s.context() > c.maxSeqLen()) {
      throw new IllegalArgumentException("--context must be in " + (SparsityProfile.FIRST_QUERY + 2) + ".."
          + c.maxSeqLen() + " (the model's context), got " + s.context());
    }
    SparsityProfile profile = ShadowEvaluation.profile(m, s);
    ShadowEvaluation.HeldOut held = ShadowEvaluation.heldOut(m, s);
    ShadowEvaluation.Result acc = ShadowEvaluation.run(m, s, profile, held,
        org.llmnpu.sw.shadow.Scorer.REFERENCE);
    int[][] graph = graphs(m, s, profile, held.tokens()[0]);
    ShadowPipeline.Result small = modelPipeline(pipe, model, c, profile, graph, s.context());
    ShadowPipeline.Result large = llama2(pipe, profile, s.minKeep(), acc.graphsPerLayer() / c.heads(), largeContext);
    return new Result(model, presetName, acc, small, large);
  }

  /** The pipeline of a preset: its CPU and host costs, its NPU preset on the cycle model. */
  public static ShadowPipeline pipeline(String presetName) {
    SocPreset preset = SocPreset.load(presetName);
    EstimateTarget npu = EstimateTarget.load(preset.npuPreset(), null);
    return new ShadowPipeline(npu.npu().machine(), npu.clockMhz(), preset.cpu(), preset.host());
  }

  /**
   * LLaMA-2-7B's attention (all 32 layers) in a prefill of {@code context} tokens: every head keeps the profiled
   * model's mean share of its context (at least {@code minKeep}); {@code graphsPerHead} (distinct estimation graphs
   * a layer used, per head, as measured) times 32 graphs a layer, the heads dealt over them in turn.
   */
  public static ShadowPipeline.Result llama2(ShadowPipeline pipe, SparsityProfile profile, int minKeep,
                                             double graphsPerHead, int context) {
    return llama2(pipe, profile.meanKeepRatio(), minKeep, graphsPerHead, context);
  }

  /** As {@link #llama2(ShadowPipeline, SparsityProfile, int, double, int)} with a given keep ratio. */
  public static ShadowPipeline.Result llama2(ShadowPipeline pipe, double keepRatio, int minKeep, double graphsPerHead,
                                             int context) {
    ModelConfig big = ModelShapes.of("llama-2-7b").config();
    int[] keep = new int[big.heads()];
    int[] graph = new int[big.heads()];
    int g = (int) Math.max(1, Math.min(big.heads(), Math.round(graphsPerHead * big.heads())));
    for (int h = 0; h < big.heads(); h++) {
      keep[h] = Math.min(context, Math.max(minKeep, (int) Math.ceil(keepRatio * context)));
      graph[h] = h % g;
    }
    return scaled(pipe.run(new ShadowPipeline.Layer("llama-2-7b", big.heads(), big.kvHeads(), big.headDim(), context,
        keep, graph)), big.layers());
  }

  /**
   * A model's attention (every layer, one after another) in a prefill of {@code context} tokens: each head keeps
   * its profiled count, each layer's heads use the estimation graphs {@code graph[layer][head]}.
   */
  public static ShadowPipeline.Result modelPipeline(ShadowPipeline pipe, String name, ModelConfig c,
                                                    SparsityProfile profile, int[][] graph, int context) {
    ShadowPipeline.Result sum = null;
    for (int l = 0; l < c.layers(); l++) {
      int[] keep = new int[c.heads()];
      for (int h = 0; h < c.heads(); h++) {
        keep[h] = profile.keep(l, h, context);
      }
      ShadowPipeline.Result r = pipe.run(new ShadowPipeline.Layer(name, c.heads(), c.kvHeads(), c.headDim(), context,
          keep, graph[l]));
      sum = sum == null ? r : new ShadowPipeline.Result(name, context, sum.serialS() + r.serialS(),
          sum.headwiseS() + r.headwiseS(), sum.mergedS() + r.mergedS(), sum.outOfOrderS() + r.outOfOrderS(),
          sum.denseCpuS() + r.denseCpuS(), sum.denseNpuS() + r.denseNpuS(), r.headPrograms(),
          Math.max(sum.mergedPrograms(), r.mergedPrograms()), sum.estimationS() + r.estimationS(),
          sum.mergedEstimationS() + r.mergedEstimationS(), sum.topkS() + r.topkS(), sum.sparseS() + r.sparseS());
    }
    return sum;
  }

  /** Each layer's estimation graph of each head: its (Q bucket, K bucket) pair on {@code seq}. */
  public static int[][] graphs(Transformer m, ShadowEvaluation.Settings s, SparsityProfile p, int[] seq) {
    ModelConfig c = m.config();
    ShadowPrefill.Result r = ShadowPrefill.run(m, seq, ShadowPrefill.Options.dense());
    ScaleBuckets qb = s.scaleBuckets() == 0 ? ScaleBuckets.dynamic() : new ScaleBuckets(s.scaleBuckets(), s.scaleStep(), p.qScaleMedian());
    ScaleBuckets kb = s.scaleBuckets() == 0 ? ScaleBuckets.dynamic() : new ScaleBuckets(s.scaleBuckets(), s.scaleStep(), p.kScaleMedian());
    int[][] g = new int[c.layers()][c.heads()];
    for (int l = 0; l < c.layers(); l++) {
      for (int h = 0; h < c.heads(); h++) {
        g[l][h] = qb.isDynamic() ? h / c.groupSize()
            : qb.nearest(r.qScales()[l][h]) * 4096 + kb.nearest(r.kScales()[l][h / c.groupSize()]);
      }
    }
    return g;
  }

  /** A layer's latencies times the model's layers (layers run one after another). */
  private static ShadowPipeline.Result scaled(ShadowPipeline.Result r, int layers) {
    return new ShadowPipeline.Result(r.model(), r.context(), r.serialS() * layers, r.headwiseS() * layers,
        r.mergedS() * layers, r.outOfOrderS() * layers, r.denseCpuS() * layers, r.denseNpuS() * layers,
        r.headPrograms(), r.mergedPrograms(), r.estimationS() * layers, r.mergedEstimationS() * layers,
        r.topkS() * layers, r.sparseS() * layers);
  }

  public static String json(Result r) {
    ObjectMapper om = new ObjectMapper();
    ObjectNode o = om.createObjectNode();
    ShadowEvaluation.Result a = r.accuracy();
    o.put("model", r.model());
    o.put("preset", r.preset());
    o.put("context", a.settings().context());
    o.put("massShare", a.settings().massShare());
    o.put("meanKeepRatio", a.profile().meanKeepRatio());
    o.put("topkRecall", a.topkRecall());
    o.put("int8FullAttentionTop1", a.int8Full().top1());
    o.put("shadowTop1", a.shadow().top1());
    o.put("denseTop1", a.dense().top1());
    o.put("int8FullAttentionAgreement", a.int8Full().agreement());
    o.put("shadowAgreement", a.shadow().agreement());
    o.put("int8FullAttentionKl", a.int8Full().kl());
    o.put("shadowKl", a.shadow().kl());
    o.put("scaleBuckets", a.settings().scaleBuckets());
    o.put("scaleStep", a.settings().scaleStep());
    o.put("graphsOffline", a.graphsOffline());
    o.put("graphsPerLayer", a.graphsPerLayer());
    o.put("speedupVsDense", r.pipeline().speedupVsDenseCpu());
    pipeline(o.putObject("pipeline"), r.pipeline());
    pipeline(o.putObject("llama2_7b"), r.large());
    try {
      return om.writerWithDefaultPrettyPrinter().writeValueAsString(o) + "\n";
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void pipeline(ObjectNode o, ShadowPipeline.Result p) {
    o.put("model", p.model());
    o.put("context", p.context());
    o.put("serialS", p.serialS());
    o.put("headwiseS", p.headwiseS());
    o.put("mergedS", p.mergedS());
    o.put("outOfOrderS", p.outOfOrderS());
    o.put("denseCpuS", p.denseCpuS());
    o.put("denseNpuS", p.denseNpuS());
    o.put("speedupVsDenseCpu", p.speedupVsDenseCpu());
    o.put("speedupVsDenseNpu", p.speedupVsDenseNpu());
    o.put("programsPerLayerHeadwise", p.headPrograms());
    o.put("programsPerLayerMerged", p.mergedPrograms());
  }

  public static String text(Result r) {
    ShadowEvaluation.Result a = r.accuracy();
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "ShadowNPU on %s, context %d, %d held-out sequences; per-head sparsity keeping "
        + "%.1f%% of the attention mass (mean keep %.1f%% of the tokens)%n", r.model(), a.settings().context(),
        a.settings().evaluationSequences(), 100 * a.settings().massShare(), 100 * a.profile().meanKeepRatio()));
    b.append(String.format(Locale.ROOT, "  top-k recall of the INT8 estimate: %.4f%n", a.topkRecall()));
    b.append(String.format(Locale.ROOT, "  %-34s %10s %12s %10s%n", "attention", "top-1", "agree FP32", "KL"));
    row(b, "dense FP32", a.dense());
    row(b, "full INT8 (NPU)", a.int8Full());
    row(b, "INT8 estimate + FP32 sparse", a.shadow());
    b.append(String.format(Locale.ROOT, "  scale buckets: %d, step %.3g: %d graphs offline, %.2f per layer online%n",
        a.settings().scaleBuckets(), a.settings().scaleStep(), a.graphsOffline(), a.graphsPerLayer()));
    pipe(b, r.pipeline(), r.preset());
    pipe(b, r.large(), r.preset());
    b.append(String.format(Locale.ROOT, "speedupVsDense (pipeline vs dense FP32 attention on the CPU, %s): %.2fx%n",
        r.model(), r.pipeline().speedupVsDenseCpu()));
    return b.toString();
  }

  private static void row(StringBuilder b, String name, ShadowEvaluation.Accuracy a) {
    b.append(String.format(Locale.ROOT, "  %-34s %10.4f %12.4f %10.4f%n", name, a.top1(), a.agreement(), a.kl()));
  }

  private static void pipe(StringBuilder b, ShadowPipeline.Result p, String preset) {
    b.append(String.format(Locale.ROOT, "Attention of a %d-token prefill, %s on %s (all layers): serial %.3f ms, "
        + "head-wise %.3f ms, merged %.3f ms (%d programs a layer instead of %d), out-of-order %.3f ms; dense FP32 on "
        + "the CPU %.3f ms (%.2fx), dense INT8 on the NPU %.3f ms (%.2fx)%n", p.context(), p.model(), preset,
        1e3 * p.serialS(), 1e3 * p.headwiseS(), 1e3 * p.mergedS(), p.mergedPrograms(), p.headPrograms(),
        1e3 * p.outOfOrderS(), 1e3 * p.denseCpuS(), p.speedupVsDenseCpu(), 1e3 * p.denseNpuS(), p.speedupVsDenseNpu()));
  }
}
