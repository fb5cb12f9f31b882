package org.llmnpu.sw.bench;

/**
 * FP32 emulation of the NPU's quantizers for the probes that switch them site by site: an activation vector to INT8
 * with its own absmax (the DSP's dynamic quantization, guard {@code 2^−8}) and a weight matrix per output channel (row)
 * to {@code ±levels} codes (127 for INT8, 7 for INT4), each dequantized again.
 */
final class FakeQuant {
  /** The DSP's absmax guard: scales are {@code max(absmax, 2^−8)/127}. */
  static final double GUARD = 1.0 / 256;

  private FakeQuant() {
  }

  /** The largest |x_i|. */
  static double absmax(float[] x) {
    double m = 0;
    for (float v : x) {
      m = Math.max(m, Math.abs(v));
    }
    return m;
  }

  /** {@code x} through INT8 with its own absmax scale {@code max(absmax, 2^−8)/127}, dequantized. */
  static float[] activation(float[] x) {
    double s = Math.max(absmax(x), GUARD) / 127;
    float[] y = new float[x.length];
    for (int i = 0; i < x.length; i++) {
      y[i] = (float) (Math.max(-127, Math.min(127, Math.rint(x[i] / s))) * s);
    }
    return y;
  }

  /** Each row of {@code w} through {@code ±levels} codes with its own absmax scale (round to nearest), dequantized. */
  static float[][] weights(float[][] w, int levels) {
    float[][] o = new float[w.length][];
    for (int i = 0; i < w.length; i++) {
      double m = absmax(w[i]);
      double s = m > 0 ? m / levels : 1;
      o[i] = new float[w[i].length];
      for (int k = 0; k < w[i].length; k++) {
        o[i][k] = (float) (Math.max(-levels, Math.min(levels, Math.rint(w[i][k] / s))) * s);
      }
    }
    return o;
  }
}
