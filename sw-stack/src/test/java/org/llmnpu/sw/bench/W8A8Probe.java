package org.llmnpu.sw.bench;

import org.llmnpu.sw.eval.LogitComparison;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.lower.QuantSiteForward;
import org.llmnpu.sw.model.LayerWeights;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Transformer;

/**
 * FP32 emulation of the NPU integer path with each quantization site switchable (the sites of
 * {@link QuantSiteForward}, in its order, then the weights): which site costs the KL.
 */
public final class W8A8Probe {
  static boolean[] on = new boolean[10];

  static float[] fq(float[] x, int site) {
    return on[site] ? FakeQuant.activation(x) : x.clone();
  }

  static float[][] fqw(float[][] w) {
    return on[9] ? FakeQuant.weights(w, 127) : w;
  }

  static float[][] run(ModelWeights w, int[] seq) {
    LayerWeights[] layers = new LayerWeights[w.config().layers()];
    for (int l = 0; l < layers.length; l++) {
      layers[l] = w.layers()[l].mapProjections(W8A8Probe::fqw);
    }
    return QuantSiteForward.run(w, layers, fqw(w.lmHead()), seq, (site, l, x) -> fq(x, site.ordinal()));
  }

  public static void main(String[] args) throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    Transformer fp32 = new Transformer(w);
    int[][] seqs = SampledSequences.sample(fp32, 8, 64, 2_000_000L);
    String[] names = {"xn→qkv", "q", "k", "v", "p", "attn→wo", "xn→w13", "h→w2", "xn→lm", "weights"};
    for (int site = -2; site < 10; site++) {
      java.util.Arrays.fill(on, site == -1);
      if (site >= 0) {
        on[site] = true;
      }
      float[][] ref = new float[8 * 64][];
      float[][] got = new float[8 * 64][];
      java.util.Arrays.fill(on, site == -1 ? true : false);
      if (site >= 0) {
        on[site] = true;
      }
      for (int s = 0; s < 8; s++) {
        float[][] r = fp32.forwardAll(seqs[s], fp32.newCache(64));
        float[][] g = run(w, seqs[s]);
        for (int i = 0; i < 64; i++) {
          ref[s * 64 + i] = r[i];
          got[s * 64 + i] = g[i];
        }
      }
      LogitComparison cmp = LogitComparison.compare(ref, got);
      System.out.printf("%-10s top-1 %.4f KL %.5f%n", site == -2 ? "none" : site == -1 ? "all" : names[site],
          cmp.top1Agreement(), cmp.klDivergence());
    }
  }
}
