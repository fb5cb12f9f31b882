package org.llmnpu.sw.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.llmnpu.sw.eval.LogitComparison;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.lower.QuantSiteForward;
import org.llmnpu.sw.model.LayerWeights;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Transformer;

/**
 * How many of the INT8 probability codes' levels the per-token V-scale bound ({@code ValueScaleBound}) leaves a
 * query head, against coding each head's {@code p_j·s_j} by its own absmax (the codes before the bound), emulated in
 * FP32 on stories260K ({@link QuantSiteForward}: weights per output channel to INT8 or INT4 codes, every activation
 * site to INT8 with its own absmax, {@link FakeQuant}). A slot's V scale is {@code s_j = max(absmax(v_j), 2^−8)/127}
 * over the whole KV vector, {@code u_j = 127·s_j}; the bound codes are {@code rint(127·e_j·u_j/B)} with
 * {@code e_j = p_j/max p} and {@code B = max_{j≤t} u_j}, so a head's largest code is {@code 127·max(e·u)/B}: 127 where
 * the slot it attends most has the token's largest V scale, fewer where it has a smaller one. The absmax codes always
 * reach 127 (short of it only under the guard).
 *
 * <p>Prints, for {@code FusedLoweringTest.PROMPT}'s last token, each layer's and head's largest code both ways, the
 * slot with the largest p and with the largest u, and the head output's relative error against exact probabilities
 * (same quantized V); then, on held-out sequences, for INT8 and INT4 weights: the mean bits of levels lost
 * ({@code log2(127/largest code)}), the fewest levels any head keeps, the heads' mean relative output error, and the
 * logits' KL and top-1 against FP32 with the bound and without, paired by sequence (95 % t interval). A benchmark,
 * not a test: {@code java -cp … org.llmnpu.sw.bench.ValueBoundLevelsBench [sequences] [length]}.
 */
public final class ValueBoundLevelsBench {
  /** {@code FusedLoweringTest.PROMPT} (GatedSwigluLoweringTest's prompt). */
  private static final int[] PROMPT = {1, 403, 407, 261, 378, 300};

  /** One head's codes at one token, both ways. */
  record HeadCodes(int layer, int head, int slots, int boundMax, int absmaxMax, int mostAttended, double uAttended,
                   int largestU, double uLargest, double boundError, double absmaxError) {
  }

  private ValueBoundLevelsBench() {
  }

  /**
   * The FP32 forward with quantized weights ({@code weightLevels} 127 or 7) and activations, the probabilities coded
   * with the bound ({@code bound}) or by their own absmax; every head's {@link HeadCodes} added to {@code heads}.
   */
  static float[][] run(ModelWeights w, int weightLevels, int[] seq, boolean bound, List<HeadCodes> heads) {
    int layers = w.config().layers();
    LayerWeights[] quantized = new LayerWeights[layers];
    for (int l = 0; l < layers; l++) {
      quantized[l] = w.layers()[l].mapProjections(m -> FakeQuant.weights(m, weightLevels));
    }
    List<List<float[]>> values = new ArrayList<>();
    for (int l = 0; l < layers; l++) {
      values.add(new ArrayList<>());
    }
    int[] calls = new int[layers];
    return QuantSiteForward.run(w, quantized, FakeQuant.weights(w.lmHead(), 127), seq, (site, layer, x) -> {
      if (site == QuantSiteForward.Site.V) {
        float[] v = FakeQuant.activation(x);
        values.get(layer).add(v);
        return v;
      }
      if (site == QuantSiteForward.Site.P) {
        int head = calls[layer]++ % w.config().heads();
        return code(x, values.get(layer), head, w.config().headDim(), head / w.config().groupSize(), layer, bound,
            heads);
      }
      return FakeQuant.activation(x);
    });
  }

  /** Head {@code head}'s probabilities {@code p} through its codes, both ways measured, the {@code bound} way kept. */
  private static float[] code(float[] p, List<float[]> v, int head, int hd, int kvHead, int layer, boolean bound,
      List<HeadCodes> heads) {
    int n = p.length;
    double[] u = new double[n];
    double maxP = 0;
    double bigB = 0;
    double absmax = 0;
    int mostAttended = 0;
    int largestU = 0;
    for (int j = 0; j < n; j++) {
      u[j] = Math.max(FakeQuant.absmax(v.get(j)), FakeQuant.GUARD);
      maxP = Math.max(maxP, p[j]);
      bigB = Math.max(bigB, u[j]);
      absmax = Math.max(absmax, p[j] * u[j] / 127);
      mostAttended = p[j] > p[mostAttended] ? j : mostAttended;
      largestU = u[j] > u[largestU] ? j : largestU;
    }
    double absmaxScale = Math.max(absmax, FakeQuant.GUARD) / 127;
    float[] withBound = new float[n];
    float[] withAbsmax = new float[n];
    int boundMax = 0;
    int absmaxMax = 0;
    for (int j = 0; j < n; j++) {
      int cb = (int) Math.rint(127 * (p[j] / maxP) * u[j] / bigB);
      int ca = (int) Math.rint(p[j] * u[j] / 127 / absmaxScale);
      boundMax = Math.max(boundMax, cb);
      absmaxMax = Math.max(absmaxMax, ca);
      withBound[j] = (float) (cb * bigB * maxP / (127 * u[j]));
      withAbsmax[j] = (float) (ca * absmaxScale * 127 / u[j]);
    }
    heads.add(new HeadCodes(layer, head, n, boundMax, absmaxMax, mostAttended, u[mostAttended], largestU, u[largestU],
        outputError(p, withBound, v, hd, kvHead), outputError(p, withAbsmax, v, hd, kvHead)));
    return bound ? withBound : withAbsmax;
  }

  /** {@code ‖Σ(q_j − p_j)·v_j‖ / ‖Σ p_j·v_j‖} over the head's dimensions of KV head {@code kvHead}. */
  private static double outputError(float[] p, float[] q, List<float[]> v, int hd, int kvHead) {
    double err = 0;
    double norm = 0;
    for (int i = 0; i < hd; i++) {
      double exact = 0;
      double coded = 0;
      for (int j = 0; j < p.length; j++) {
        exact += p[j] * v.get(j)[kvHead * hd + i];
        coded += q[j] * v.get(j)[kvHead * hd + i];
      }
      err += (coded - exact) * (coded - exact);
      norm += exact * exact;
    }
    return Math.sqrt(err / Math.max(norm, 1e-30));
  }

  public static void main(String[] args) throws Exception {
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 32;
    int length = args.length > 1 ? Integer.parseInt(args[1]) : 64;
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    Transformer fp32 = new Transformer(w);
    for (int levels : new int[] {127, 7}) {
      String name = levels == 127 ? "int8" : "int4";
      List<HeadCodes> heads = new ArrayList<>();
      float[][] ref = fp32.forwardAll(PROMPT, fp32.newCache(PROMPT.length));
      float[][] absmax = run(w, levels, PROMPT, false, new ArrayList<>());
      float[][] bound = run(w, levels, PROMPT, true, heads);
      int last = PROMPT.length - 1;
      System.out.printf(Locale.ROOT, "%s weights, prompt's last token: top %d (FP32 %d), KL to FP32 %.3f absmax codes,"
          + " %.3f bound codes%n", name, org.llmnpu.sw.model.Ops.argmax(bound[last]),
          org.llmnpu.sw.model.Ops.argmax(ref[last]), LogitComparison.klDivergence(ref[last], absmax[last]),
          LogitComparison.klDivergence(ref[last], bound[last]));
      System.out.println("| layer | head | largest code: bound / absmax | most attended slot (u) | largest-u slot (u) |"
          + " output error: bound / absmax |");
      System.out.println("|---:|---:|---:|---|---|---:|");
      for (HeadCodes h : heads) {
        if (h.slots() == PROMPT.length) {
          System.out.printf(Locale.ROOT, "| %d | %d | %d / %d | %d (%.3f) | %d (%.3f) | %.4f / %.4f |%n", h.layer(),
              h.head(), h.boundMax(), h.absmaxMax(), h.mostAttended(), h.uAttended(), h.largestU(), h.uLargest(),
              h.boundError(), h.absmaxError());
        }
      }
      heldOut(w, fp32, levels, name, count, length);
    }
  }

  private static void heldOut(ModelWeights w, Transformer fp32, int levels, String name, int count, int length) {
    int[][] sequences = SampledSequences.sample(fp32, count, length, SampledSequences.EVALUATION_SEED);
    double[][] kl = new double[2][count];
    double[][] top1 = new double[2][count];
    List<HeadCodes> heads = new ArrayList<>();
    for (int s = 0; s < count; s++) {
      float[][] ref = fp32.forwardAll(sequences[s], fp32.newCache(length));
      for (int way = 0; way < 2; way++) {
        LogitComparison c = LogitComparison.compare(ref, run(w, levels, sequences[s], way == 1,
            way == 1 ? heads : new ArrayList<>()));
        kl[way][s] = c.klDivergence();
        top1[way][s] = c.top1Agreement();
      }
    }
    double bits = 0;
    double boundError = 0;
    double absmaxError = 0;
    int fewest = 127;
    for (HeadCodes h : heads) {
      bits += Math.log(127.0 / Math.max(1, h.boundMax())) / Math.log(2) / heads.size();
      boundError += h.boundError() / heads.size();
      absmaxError += h.absmaxError() / heads.size();
      fewest = Math.min(fewest, h.boundMax());
    }
    System.out.printf(Locale.ROOT, "%s weights, %d x %d held-out tokens, %d query heads: bits lost to the bound %.3f"
        + " (fewest levels %d), head output error %.4f (absmax codes %.4f)%n", name, count, length, heads.size(), bits,
        fewest, boundError, absmaxError);
    System.out.printf(Locale.ROOT, "  KL %.4f -> %.4f, paired %s; top-1 %.4f -> %.4f, paired %s%n", mean(kl[0]),
        mean(kl[1]), paired(kl), mean(top1[0]), mean(top1[1]), paired(top1));
  }

  private static double mean(double[] x) {
    double m = 0;
    for (double v : x) {
      m += v / x.length;
    }
    return m;
  }

  /** {@code b − a} by sequence: the mean and its 95 % t interval (t = 2.04 from 30 sequences, larger below). */
  static String paired(double[][] ab) {
    int n = ab[0].length;
    double[] d = new double[n];
    for (int i = 0; i < n; i++) {
      d[i] = ab[1][i] - ab[0][i];
    }
    double m = mean(d);
    double var = 0;
    for (double x : d) {
      var += (x - m) * (x - m) / Math.max(1, n - 1);
    }
    double t = n >= 30 ? 2.04 : n >= 16 ? 2.13 : n >= 8 ? 2.36 : 2.78;
    double half = t * Math.sqrt(var / n);
    return String.format(Locale.ROOT, "%+.4f [%+.4f, %+.4f]", m, m - half, m + half);
  }
}
