package org.llmnpu.cosim.pim.bench;

import java.util.IdentityHashMap;
import java.util.Map;
import org.llmnpu.numerics.fp.FloatFormat;
import org.llmnpu.numerics.fp.Overflow;
import org.llmnpu.numerics.fp.Rounding;
import org.llmnpu.numerics.pim.PimAlignment;
import org.llmnpu.numerics.pim.PimFpConfig;
import org.llmnpu.numerics.pim.PimFpGemm;

/**
 * {@code y = W·x} ({@code W} [out][in], llama2.c layout) as the PiM macro's FP mode computes it:
 * W quantized once per output channel (one power-of-two scale per macro column, applied in the
 * periphery) and x per vector to FP8 with a power-of-two scale (so scales are exact), then the golden {@link PimFpGemm} (bit exact with the RTL) on the codes, and the result
 * rescaled. Also accumulates the alignment error alone: the result against the FP64 product of the
 * same FP8 operands.
 */
final class PimMatvec {
  final FloatFormat format;
  final PimFpConfig config;
  private final Map<float[][], Quantized> weights = new IdentityHashMap<>();
  double alignSignal;
  double alignError;

  PimMatvec(FloatFormat format, PimAlignment alignment, int alignBits, int rows) {
    this.format = format;
    this.config = new PimFpConfig(format, alignment, alignBits, rows, Integer.MAX_VALUE);
  }

  private record Quantized(int[][] codesKn, double[] scale) {
  }

  float[] apply(float[][] w, float[] x) {
    Quantized q = weights.computeIfAbsent(w, this::quantizeWeights);
    double xs = scaleFor(x);
    int[][] xc = new int[1][x.length];
    for (int i = 0; i < x.length; i++) {
      xc[0][i] = format.encode(x[i] / xs, Rounding.NEAREST_EVEN, Overflow.SATURATE);
    }
    PimFpGemm.Result r = PimFpGemm.run(config, xc, q.codesKn);
    double[][] ref = PimFpGemm.reference(format, xc, q.codesKn);
    float[] y = new float[w.length];
    for (int j = 0; j < y.length; j++) {
      double v = r.value(0, j);
      alignSignal += ref[0][j] * ref[0][j];
      alignError += (v - ref[0][j]) * (v - ref[0][j]);
      y[j] = (float) (v * xs * q.scale[j]);
    }
    return y;
  }

  /** SNR (dB) of the alignment error alone over every product so far. */
  double alignmentSnrDb() {
    return alignError == 0 ? Double.POSITIVE_INFINITY : 10 * Math.log10(alignSignal / alignError);
  }

  private Quantized quantizeWeights(float[][] w) {
    int[][] codes = new int[w[0].length][w.length];
    double[] scales = new double[w.length];
    for (int o = 0; o < w.length; o++) {
      scales[o] = scaleFor(w[o]);
      for (int i = 0; i < w[o].length; i++) {
        codes[i][o] = format.encode(w[o][i] / scales[o], Rounding.NEAREST_EVEN, Overflow.SATURATE);
      }
    }
    return new Quantized(codes, scales);
  }

  private double scaleFor(float[] x) {
    double max = 0;
    for (float v : x) {
      max = Math.max(max, Math.abs(v));
    }
    return powerOfTwoScale(max);
  }

  /** Smallest power of two s with max/s within the format's largest finite value. */
  private double powerOfTwoScale(double max) {
    if (max == 0) {
      return 1;
    }
    return Math.scalb(1.0, (int) Math.ceil(Math.log(max / format.maxFinite()) / Math.log(2)));
  }
}
