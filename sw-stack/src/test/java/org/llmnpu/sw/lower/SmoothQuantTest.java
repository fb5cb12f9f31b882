package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.LayerWeights;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Transformer;

/** Smoothing leaves the FP32 function unchanged (up to float rounding); one site smooths only its weights. */
class SmoothQuantTest {
  @Test
  void theFp32LogitsStayTheSame() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    Transformer fp32 = new Transformer(w);
    int[][] calibration = SampledSequences.sample(fp32, 2, 24, 5);
    assertSameLogits(fp32, new Transformer(SmoothQuant.apply(w, calibration, 0.5)));
  }

  /** Both models' logits on a fixed sequence agree within float rounding. */
  private static void assertSameLogits(Transformer fp32, Transformer smooth) {
    int[] seq = {1, 403, 407, 261, 378, 300};
    float[][] a = fp32.forwardAll(seq, fp32.newCache(8));
    float[][] b = smooth.forwardAll(seq, smooth.newCache(8));
    for (int i = 0; i < seq.length; i++) {
      for (int v = 0; v < a[i].length; v++) {
        assertEquals(a[i][v], b[i][v], 1e-3 * (1 + Math.abs(a[i][v])), "position " + i + " token " + v);
      }
    }
  }

  @Test
  void theW2InputAloneChangesOnlyW3AndW2AndKeepsTheLogits() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    Transformer fp32 = new Transformer(w);
    int[][] calibration = SampledSequences.sample(fp32, 2, 24, 5);
    ModelWeights s = SmoothQuant.apply(w, calibration, 0.5, Set.of(QuantSiteForward.Site.W2_IN));
    for (int l = 0; l < w.config().layers(); l++) {
      LayerWeights a = w.layers()[l];
      LayerWeights b = s.layers()[l];
      assertArrayEquals(a.attnNorm(), b.attnNorm());
      assertArrayEquals(a.ffnNorm(), b.ffnNorm());
      for (float[][][] pair : new float[][][][] {{a.wq(), b.wq()}, {a.wk(), b.wk()}, {a.wv(), b.wv()},
          {a.wo(), b.wo()}, {a.w1(), b.w1()}}) {
        assertEquals(Arrays.deepToString(pair[0]), Arrays.deepToString(pair[1]), "layer " + l);
      }
      assertFalse(Arrays.deepEquals(a.w2(), b.w2()), "layer " + l + ": W2's input rows scaled");
      assertFalse(Arrays.deepEquals(a.w3(), b.w3()), "layer " + l + ": W3's output channels divided");
    }
    assertSameLogits(fp32, new Transformer(s));
    assertThrows(IllegalArgumentException.class,
        () -> SmoothQuant.apply(w, calibration, 0.5, Set.of(QuantSiteForward.Site.LM_IN)));
  }
}
