package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.llmnpu.sw.eval.LogitComparison;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Transformer;

/**
 * Which granularity of static q/k/v scales to calibrate ({@link StaticScales.Site#Q}, {@code K}, {@code V}): the FP32
 * stories260K forward ({@link QuantSiteForward}) with only q and k (after RoPE) and v fake-quantized to symmetric INT8,
 * every other value FP32, on the held-out set ({@code FusionAccuracyBench}'s: sequences sampled with seed 2,000,000),
 * top-1 agreement and KL(FP32 ‖ quantized) over every position. Rows: each token's absmax (the lowering's dynamic
 * quantization), and static scales calibrated on {@link StaticScales}' calibration set per tensor, per head and per
 * channel, each at the absmax and MSE-clipped ({@link StaticScales#clippedScale}). Isolates the q/k/v quantization's
 * own error from the rest of the integer path. Benchmark (seconds):
 * {@code java -cp … org.llmnpu.sw.lower.QkvScaleGranularityBench [sequences] [length]}.
 */
public final class QkvScaleGranularityBench {
  private static final QuantSiteForward.Site[] SITES = {QuantSiteForward.Site.Q, QuantSiteForward.Site.K,
      QuantSiteForward.Site.V};

  private QkvScaleGranularityBench() {
  }

  public static void main(String[] args) throws Exception {
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 2;
    int length = args.length > 1 ? Integer.parseInt(args[1]) : 64;
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    Transformer fp32 = new Transformer(w);
    int layers = w.config().layers();
    int headDim = w.config().headDim();
    // the calibration set's q, k, v vectors per layer and site
    List<List<List<float[]>>> seen = new ArrayList<>();
    for (int l = 0; l < layers; l++) {
      seen.add(new ArrayList<>());
      for (int s = 0; s < SITES.length; s++) {
        seen.get(l).add(new ArrayList<>());
      }
    }
    int calibrationLength = Math.min(StaticScales.CALIBRATION_LENGTH, w.config().maxSeqLen());
    for (int[] seq : SampledSequences.sample(fp32, StaticScales.CALIBRATION_SEQUENCES, calibrationLength,
        SampledSequences.CALIBRATION_SEED)) {
      QuantSiteForward.run(w, w.layers(), null, seq, (site, layer, x) -> {
        int s = site(site);
        if (s >= 0) {
          seen.get(layer).get(s).add(x.clone());
        }
        return x;
      });
    }
    int[][] heldOut = SampledSequences.sample(fp32, count, length, 2_000_000L);
    float[][] reference = new float[count * length][];
    for (int i = 0; i < count; i++) {
      System.arraycopy(fp32.forwardAll(heldOut[i], fp32.newCache(length)), 0, reference, i * length, length);
    }
    System.out.printf(Locale.ROOT, "held-out: %d sequences x %d tokens (seed 2000000); only q, k, v quantized%n", count,
        length);
    System.out.println("| q/k/v scales | top-1 agreement | KL (nats) |");
    System.out.println("|---|---:|---:|");
    print("each token's absmax (dynamic)", w, heldOut, reference, null);
    for (String granularity : new String[] {"tensor", "head", "channel"}) {
      for (boolean clipped : new boolean[] {false, true}) {
        int group = granularity.equals("tensor") ? Integer.MAX_VALUE : granularity.equals("head") ? headDim : 1;
        double[][][] scales = new double[layers][SITES.length][];
        for (int l = 0; l < layers; l++) {
          for (int s = 0; s < SITES.length; s++) {
            scales[l][s] = calibrate(seen.get(l).get(s), group, clipped);
          }
        }
        print("static per " + granularity + (clipped ? ", MSE-clipped" : ", absmax"), w, heldOut, reference,
            scales);
      }
    }
  }

  private static int site(QuantSiteForward.Site site) {
    for (int s = 0; s < SITES.length; s++) {
      if (SITES[s] == site) {
        return s;
      }
    }
    return -1;
  }

  /** A scale per group of {@code group} consecutive elements (the whole vector when larger). */
  private static double[] calibrate(List<float[]> vectors, int group, boolean clipped) {
    int len = vectors.get(0).length;
    int size = Math.min(group, len);
    double[] scales = new double[(len + size - 1) / size];
    for (int g = 0; g < scales.length; g++) {
      List<float[]> parts = new ArrayList<>();
      for (float[] v : vectors) {
        parts.add(java.util.Arrays.copyOfRange(v, g * size, Math.min(len, (g + 1) * size)));
      }
      double scale = StaticScales.clippedScaleOrAbsmax(parts, clipped);
      scales[g] = Math.max(Math.scalb(1.0, -8) / 127, scale);
    }
    return scales;
  }

  private static void print(String name, ModelWeights w, int[][] heldOut, float[][] reference, double[][][] scales) {
    int length = heldOut[0].length;
    float[][] got = new float[heldOut.length * length][];
    for (int i = 0; i < heldOut.length; i++) {
      float[][] logits = QuantSiteForward.run(w, w.layers(), w.lmHead(), heldOut[i], (site, layer, x) -> {
        int s = site(site);
        return s < 0 ? x : quantize(x, scales == null ? null : scales[layer][s]);
      });
      System.arraycopy(logits, 0, got, i * length, length);
    }
    LogitComparison c = LogitComparison.compare(reference, got);
    System.out.printf(Locale.ROOT, "| %s | %.4f | %.5f |%n", name, c.top1Agreement(), c.klDivergence());
  }

  /** Symmetric INT8 fake quantization with {@code scales} per group (null: the vector's absmax, floor 2^-8). */
  private static float[] quantize(float[] x, double[] scales) {
    double absmax = 0;
    for (float v : x) {
      absmax = Math.max(absmax, Math.abs(v));
    }
    float[] y = new float[x.length];
    int size = scales == null ? x.length : (x.length + scales.length - 1) / scales.length;
    for (int i = 0; i < x.length; i++) {
      double s = scales == null ? Math.max(absmax, Math.scalb(1.0, -8)) / 127 : scales[i / size];
      y[i] = (float) (Math.max(-127, Math.min(127, Math.rint(x[i] / s))) * s);
    }
    return y;
  }
}
