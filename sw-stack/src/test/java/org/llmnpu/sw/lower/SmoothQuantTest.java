package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Transformer;

/** Smoothing leaves the FP32 function unchanged (up to float rounding). */
class SmoothQuantTest {
  @Test
  void theFp32LogitsStayTheSame() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    Transformer fp32 = new Transformer(w);
    int[][] calibration = SampledSequences.sample(fp32, 2, 24, 5);
    Transformer smooth = new Transformer(SmoothQuant.apply(w, calibration, 0.5));
    int[] seq = {1, 403, 407, 261, 378, 300};
    float[][] a = fp32.forwardAll(seq, fp32.newCache(8));
    float[][] b = smooth.forwardAll(seq, smooth.newCache(8));
    for (int i = 0; i < seq.length; i++) {
      for (int v = 0; v < a[i].length; v++) {
        assertEquals(a[i][v], b[i][v], 1e-3 * (1 + Math.abs(a[i][v])), "position " + i + " token " + v);
      }
    }
  }
}
