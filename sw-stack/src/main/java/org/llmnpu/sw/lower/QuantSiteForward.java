package org.llmnpu.sw.lower;

import org.llmnpu.sw.model.LayerWeights;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Ops;

/**
 * The FP32 forward pass (teacher-forced, position by position, llama2.c order of operations) with
 * a hook at every site where the lowered decoder quantizes an activation: the inputs of the QKV,
 * Wo, W1|W3, W2 and LM-head GEMMs, q, k and v after RoPE, and the attention probabilities. A hook
 * may record a vector (SmoothQuant's calibration) or replace it (the W8A8 probe's fake
 * quantization); the identity hook gives the FP32 model.
 */
public final class QuantSiteForward {
  /** Where the hook is called. */
  public enum Site { QKV_IN, Q, K, V, P, WO_IN, W13_IN, W2_IN, LM_IN }

  /** Sees (and may replace) the vector at a site of a layer (layer −1 for {@link Site#LM_IN}). */
  @FunctionalInterface
  public interface Hook {
    float[] at(Site site, int layer, float[] x);
  }

  private QuantSiteForward() {
  }

  /**
   * Logits of every position of {@code seq} with the block weights {@code layers} and the LM head
   * {@code lmHead} (no logits, and no LM-head site, when it is null); embedding and norms from
   * {@code w}.
   */
  public static float[][] run(ModelWeights w, LayerWeights[] layers, float[][] lmHead, int[] seq, Hook hook) {
    ModelConfig c = w.config();
    int hd = c.headDim();
    float[][][] kc = new float[c.layers()][seq.length][];
    float[][][] vc = new float[c.layers()][seq.length][];
    float[][] out = new float[seq.length][];
    for (int pos = 0; pos < seq.length; pos++) {
      float[] x = w.tokenEmbedding()[seq[pos]].clone();
      for (int l = 0; l < c.layers(); l++) {
        LayerWeights lw = layers[l];
        float[] xn = hook.at(Site.QKV_IN, l, Ops.rmsNorm(x, lw.attnNorm(), c.normEps()));
        float[] q = Ops.matvec(lw.wq(), xn);
        float[] k = Ops.matvec(lw.wk(), xn);
        float[] v = Ops.matvec(lw.wv(), xn);
        Ops.rope(q, pos, hd, c.ropeTheta());
        Ops.rope(k, pos, hd, c.ropeTheta());
        q = hook.at(Site.Q, l, q);
        kc[l][pos] = hook.at(Site.K, l, k);
        vc[l][pos] = hook.at(Site.V, l, v);
        float[] att = new float[c.dim()];
        for (int h = 0; h < c.heads(); h++) {
          int g = h / c.groupSize();
          float[] sc = new float[pos + 1];
          for (int j = 0; j <= pos; j++) {
            double s = 0;
            for (int i = 0; i < hd; i++) {
              s += q[h * hd + i] * kc[l][j][g * hd + i];
            }
            sc[j] = (float) (s / Math.sqrt(hd));
          }
          Ops.softmax(sc, pos + 1);
          float[] p = hook.at(Site.P, l, sc);
          for (int j = 0; j <= pos; j++) {
            for (int i = 0; i < hd; i++) {
              att[h * hd + i] += p[j] * vc[l][j][g * hd + i];
            }
          }
        }
        float[] proj = Ops.matvec(lw.wo(), hook.at(Site.WO_IN, l, att));
        for (int i = 0; i < x.length; i++) {
          x[i] += proj[i];
        }
        float[] xb = hook.at(Site.W13_IN, l, Ops.rmsNorm(x, lw.ffnNorm(), c.normEps()));
        float[] gate = Ops.matvec(lw.w1(), xb);
        float[] up = Ops.matvec(lw.w3(), xb);
        for (int i = 0; i < gate.length; i++) {
          gate[i] = Ops.silu(gate[i]) * up[i];
        }
        float[] down = Ops.matvec(lw.w2(), hook.at(Site.W2_IN, l, gate));
        for (int i = 0; i < x.length; i++) {
          x[i] += down[i];
        }
      }
      if (lmHead != null) {
        out[pos] = Ops.matvec(lmHead, hook.at(Site.LM_IN, -1, Ops.rmsNorm(x, w.finalNorm(), c.normEps())));
      }
    }
    return out;
  }
}
