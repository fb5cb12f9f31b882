package org.llmnpu.cosim.pim.bench;

import java.util.IdentityHashMap;
import java.util.Map;
import org.llmnpu.numerics.fp.FloatFormat;
import org.llmnpu.numerics.fp.Overflow;
import org.llmnpu.numerics.fp.Rounding;
import org.llmnpu.numerics.pim.PimAlignment;
import org.llmnpu.numerics.pim.PimFpConfig;
import org.llmnpu.numerics.pim.PimFpGemm;
import org.llmnpu.numerics.pim.PimInputFormat;
import org.llmnpu.numerics.mx.MxBlock;
import org.llmnpu.numerics.mx.MxElementType;
import org.llmnpu.numerics.mx.MxQuantizer;

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
    this(format, null, alignment, alignBits, rows);
  }

  /**
   * With inputs of {@code input}: FP8 (per-vector power-of-two scale), BF16 (x rounded to
   * bfloat16, no scale) or MX (x quantized per 32-block by {@link MxQuantizer}, OCP shared
   * exponent, round to nearest even; the E8M0 scales go to the macro with the elements).
   */
  PimMatvec(FloatFormat format, PimInputFormat input, PimAlignment alignment, int alignBits, int rows) {
    this.format = format;
    this.config = new PimFpConfig(format, input, alignment, alignBits, rows, Integer.MAX_VALUE);
  }

  private record Quantized(int[][] codesKn, double[] scale) {
  }

  float[] apply(float[][] w, float[] x) {
    Quantized q = weights.computeIfAbsent(w, this::quantizeWeights);
    PimInputFormat in = config.input();
    double xs = in.element() == format && !in.blockScaled() ? scaleFor(x) : 1;
    int[][] xc = new int[1][x.length];
    int[][] scales = in.blockScaled() ? new int[1][in.scalesPerRow(x.length)] : null;
    if (in.blockScaled()) {
      MxElementType type = in.element() == null ? MxElementType.INT8
          : in.element().equals(FloatFormat.FP8_E5M2) ? MxElementType.FP8_E5M2 : MxElementType.FP8_E4M3;
      for (int b = 0; b < scales[0].length; b++) {
        int from = b * PimInputFormat.BLOCK;
        float[] block = java.util.Arrays.copyOfRange(x, from, Math.min(x.length, from + PimInputFormat.BLOCK));
        MxBlock mx = MxQuantizer.quantize(type, block, Rounding.NEAREST_EVEN);
        scales[0][b] = mx.scaleCode();
        for (int i = 0; i < block.length; i++) {
          xc[0][from + i] = mx.element(i) & 0xFF;
        }
      }
    } else {
      FloatFormat f = in.element();
      for (int i = 0; i < x.length; i++) {
        xc[0][i] = f.encode(x[i] / xs, Rounding.NEAREST_EVEN, Overflow.SATURATE);
      }
    }
    PimFpGemm.Result r = PimFpGemm.run(config, xc, scales, q.codesKn);
    double[][] ref = PimFpGemm.reference(in, format, xc, scales, q.codesKn);
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
