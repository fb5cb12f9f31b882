package org.llmnpu.sw.lower;

import java.util.EnumSet;
import java.util.Set;
import org.llmnpu.sw.lower.QuantSiteForward.Site;
import org.llmnpu.sw.model.LayerWeights;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;

/**
 * SmoothQuant-style migration of activation outliers into the weights, for the integer path
 * (INT8 activations with one dynamic scale per token): every GEMM input channel j is divided by
 * {@code s_j = max|X_j|^α / max|W_j|^(1−α)} (calibrated absmax of the activation channel over
 * the calibration tokens, absmax of the weights it meets) and the weights' input channel j is
 * multiplied by it, so the FP32 function is unchanged. The divisions are folded where they cost
 * nothing: into the RMSNorm gains (inputs of Q/K/V and of W1|W3), into the rows of W3 (the SwiGLU
 * output, input of W2), into the rows of Wv (the attention output, input of Wo; one factor per KV
 * head channel, shared by the query heads of its group). {@link #apply(ModelWeights, int[][], double, Set)} smooths
 * only the sites it names (e.g. the W2 input alone, whose static scale the SwiGLU gate through the PPM needs).
 */
public final class SmoothQuant {
  private SmoothQuant() {
  }

  /** The GEMM inputs that can be smoothed. */
  public static final Set<Site> SITES = Set.copyOf(EnumSet.of(Site.QKV_IN, Site.WO_IN, Site.W13_IN, Site.W2_IN));

  /** The smoothed weights of {@code w} calibrated on {@code calibration} token sequences (every site). */
  public static ModelWeights apply(ModelWeights w, int[][] calibration, double alpha) {
    return apply(w, calibration, alpha, SITES);
  }

  /**
   * The weights of {@code w} smoothed at the GEMM inputs {@code sites} (a subset of {@link #SITES}) only, calibrated
   * on {@code calibration} token sequences; the other sites' weights are unchanged.
   */
  public static ModelWeights apply(ModelWeights w, int[][] calibration, double alpha, Set<Site> sites) {
    if (!SITES.containsAll(sites)) {
      throw new IllegalArgumentException("sites must be among " + SITES + ", got " + sites);
    }
    ModelConfig c = w.config();
    int layers = c.layers();
    float[][] aQkv = new float[layers][c.dim()];
    float[][] aW13 = new float[layers][c.dim()];
    float[][] aW2 = new float[layers][c.hiddenDim()];
    float[][] aWo = new float[layers][c.dim()];
    for (int[] seq : calibration) {
      record(w, seq, aQkv, aW13, aW2, aWo);
    }
    LayerWeights[] out = new LayerWeights[layers];
    int hd = c.headDim();
    for (int l = 0; l < layers; l++) {
      LayerWeights lw = w.layers()[l];
      float[] g1 = lw.attnNorm().clone();
      float[][] wq = copy(lw.wq());
      float[][] wk = copy(lw.wk());
      float[][] wv = copy(lw.wv());
      float[][] wo = copy(lw.wo());
      float[] g2 = lw.ffnNorm().clone();
      float[][] w1 = copy(lw.w1());
      float[][] w2 = copy(lw.w2());
      float[][] w3 = copy(lw.w3());
      for (int j = 0; j < c.dim(); j++) {
        double s = sites.contains(Site.QKV_IN) ? factor(aQkv[l][j], colMax(j, wq, wk, wv), alpha) : 1;
        g1[j] /= (float) s;
        scaleCol(j, s, wq, wk, wv);
        double t = sites.contains(Site.W13_IN) ? factor(aW13[l][j], colMax(j, w1, w3), alpha) : 1;
        g2[j] /= (float) t;
        scaleCol(j, t, w1, w3);
      }
      for (int j = 0; j < c.hiddenDim(); j++) {
        double s = sites.contains(Site.W2_IN) ? factor(aW2[l][j], colMax(j, w2), alpha) : 1;
        for (int k = 0; k < c.dim(); k++) {
          w3[j][k] /= (float) s;
        }
        scaleCol(j, s, w2);
      }
      for (int g = 0; g < c.kvHeads(); g++) {
        for (int i = 0; i < hd; i++) {
          double a = 0;
          double m = 0;
          for (int h = g * c.groupSize(); h < (g + 1) * c.groupSize(); h++) {
            a = Math.max(a, aWo[l][h * hd + i]);
            m = Math.max(m, colMax(h * hd + i, wo));
          }
          double s = sites.contains(Site.WO_IN) ? factor(a, m, alpha) : 1;
          for (int k = 0; k < c.dim(); k++) {
            wv[g * hd + i][k] /= (float) s;
          }
          for (int h = g * c.groupSize(); h < (g + 1) * c.groupSize(); h++) {
            scaleCol(h * hd + i, s, wo);
          }
        }
      }
      out[l] = new LayerWeights(g1, wq, wk, wv, wo, g2, w1, w2, w3);
    }
    return w.withLayers(out);
  }

  private static double factor(double activation, double weight, double alpha) {
    if (activation <= 0 || weight <= 0) {
      return 1;
    }
    double s = Math.pow(activation, alpha) / Math.pow(weight, 1 - alpha);
    return Math.max(1e-2, Math.min(1e2, s));
  }

  private static float[][] copy(float[][] m) {
    float[][] o = new float[m.length][];
    for (int i = 0; i < m.length; i++) {
      o[i] = m[i].clone();
    }
    return o;
  }

  private static double colMax(int j, float[][]... ms) {
    double m = 0;
    for (float[][] w : ms) {
      for (float[] row : w) {
        m = Math.max(m, Math.abs(row[j]));
      }
    }
    return m;
  }

  private static void scaleCol(int j, double s, float[][]... ms) {
    for (float[][] w : ms) {
      for (float[] row : w) {
        row[j] *= (float) s;
      }
    }
  }

  /** The FP32 forward pass of {@code seq}, recording the per-channel absmax of the four GEMM inputs. */
  private static void record(ModelWeights w, int[] seq, float[][] aQkv, float[][] aW13, float[][] aW2, float[][] aWo) {
    QuantSiteForward.run(w, w.layers(), null, seq, (site, l, x) -> {
      switch (site) {
        case QKV_IN -> max(aQkv[l], x);
        case WO_IN -> max(aWo[l], x);
        case W13_IN -> max(aW13[l], x);
        case W2_IN -> max(aW2[l], x);
        default -> {
        }
      }
      return x;
    });
  }

  private static void max(float[] acc, float[] v) {
    for (int i = 0; i < v.length; i++) {
      acc[i] = Math.max(acc[i], Math.abs(v[i]));
    }
  }
}
