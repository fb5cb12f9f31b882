package org.llmnpu.sw.shadow;

/**
 * Symmetric INT8 quantization of one attention head's vectors (ShadowNPU's estimation operands): a head's scale is
 * {@code maxAbs / 127} over every vector of the head (all queries, or all keys, of the prompt); a code is
 * {@code clamp(rint(x / scale), −127, 127)}. A static graph's scale may differ from the head's own (its bucket,
 * {@link ScaleBuckets}): values past {@code 127·scale} then saturate.
 */
public final class HeadQuantizer {
  /** The smallest scale used (a head of zeros): keeps codes finite. */
  static final float MIN_SCALE = 1e-12f;

  private HeadQuantizer() {
  }

  /** The head's own scale: {@code max |rows[t][offset + i]| / 127} over every row and {@code i < d}. */
  public static float ownScale(float[][] rows, int offset, int d) {
    float max = 0f;
    for (float[] r : rows) {
      for (int i = 0; i < d; i++) {
        max = Math.max(max, Math.abs(r[offset + i]));
      }
    }
    return Math.max(MIN_SCALE, max / 127f);
  }

  /** The codes of {@code rows[t][offset .. offset + d)} at {@code scale}, one row per vector. */
  public static byte[][] quantize(float[][] rows, int offset, int d, float scale) {
    if (!(scale > 0f) || Float.isInfinite(scale)) {
      throw new IllegalArgumentException("scale must be positive and finite, got " + scale);
    }
    byte[][] out = new byte[rows.length][d];
    for (int t = 0; t < rows.length; t++) {
      for (int i = 0; i < d; i++) {
        out[t][i] = code(rows[t][offset + i], scale);
      }
    }
    return out;
  }

  /** One code: {@code clamp(rint(x / scale), −127, 127)}. */
  public static byte code(float x, float scale) {
    double q = Math.rint(x / (double) scale);
    return (byte) Math.max(-127, Math.min(127, q));
  }

  /** INT32 dot products {@code q[i] · k[j]} of INT8 codes (what the NPU's GEMM computes: no overflow below K = 2^17). */
  public static int[][] scores(byte[][] q, byte[][] k) {
    int[][] s = new int[q.length][k.length];
    for (int i = 0; i < q.length; i++) {
      for (int j = 0; j < k.length; j++) {
        int acc = 0;
        for (int c = 0; c < q[i].length; c++) {
          acc += q[i][c] * k[j][c];
        }
        s[i][j] = acc;
      }
    }
    return s;
  }
}
