package org.llmnpu.sw.shadow;

import org.llmnpu.sw.model.Ops;

/**
 * The CPU side of ShadowNPU for one query head: the top-{@code k} keys by INT32 estimation score, then FP32
 * attention over them; and, for comparison, attention computed entirely in INT8 from the same scores.
 */
final class SparseAttention {
  private SparseAttention() {
  }

  /**
   * Indices of the {@code k} largest of {@code s[0..n)} (ties to the lower index), in ascending index order.
   * Selection by a partial sort: {@code O(n·log k)}.
   */
  static int[] topK(int n, int k, IntScore s) {
    int[] heap = new int[k];
    int size = 0;
    for (int t = 0; t < n; t++) {
      if (size < k) {
        heap[size++] = t;
        siftUp(heap, size - 1, s);
      } else if (better(t, heap[0], s)) {
        heap[0] = t;
        siftDown(heap, size, s);
      }
    }
    int[] out = java.util.Arrays.copyOf(heap, size);
    java.util.Arrays.sort(out);
    return out;
  }

  /** A score by index. */
  @FunctionalInterface
  interface IntScore {
    double at(int t);
  }

  private static boolean better(int a, int b, IntScore s) {
    double x = s.at(a);
    double y = s.at(b);
    return x > y || x == y && a < b;
  }

  private static void siftUp(int[] h, int i, IntScore s) {
    while (i > 0) {
      int p = (i - 1) / 2;
      if (!better(h[p], h[i], s)) {
        break;
      }
      int tmp = h[p];
      h[p] = h[i];
      h[i] = tmp;
      i = p;
    }
  }

  private static void siftDown(int[] h, int size, IntScore s) {
    int i = 0;
    while (true) {
      int l = 2 * i + 1;
      int r = l + 1;
      int worst = i;
      if (l < size && better(h[worst], h[l], s)) {
        worst = l;
      }
      if (r < size && better(h[worst], h[r], s)) {
        worst = r;
      }
      if (worst == i) {
        return;
      }
      int tmp = h[worst];
      h[worst] = h[i];
      h[i] = tmp;
      i = worst;
    }
  }

  /**
   * FP32 attention of {@code q[qOff..qOff+d)} over the {@code keep} keys of {@code 0..n} with the largest INT8
   * estimate {@code est}; writes {@code out[qOff..qOff+d)}. When {@code keep < n}, adds to {@code recall} the
   * chosen keys that are among the true top-{@code keep} (by FP32 score) and {@code keep}.
   */
  static void attend(float[] q, int qOff, float[][] k, float[][] v, int kvOff, int d, int n, int[] est, int keep,
                     float[] out, long[] recall) {
    float scale = (float) (1.0 / Math.sqrt(d));
    float[] fp = new float[n];
    for (int t = 0; t < n; t++) {
      float s = 0f;
      for (int i = 0; i < d; i++) {
        s += q[qOff + i] * k[t][kvOff + i];
      }
      fp[t] = s * scale;
    }
    int[] chosen = keep >= n ? null : topK(n, keep, t -> est[t]);
    if (chosen != null) {
      int[] truth = topK(n, keep, t -> fp[t]);
      int hits = 0;
      int j = 0;
      for (int t : chosen) {
        while (j < truth.length && truth[j] < t) {
          j++;
        }
        hits += j < truth.length && truth[j] == t ? 1 : 0;
      }
      recall[0] += hits;
      recall[1] += keep;
    }
    int m = chosen == null ? n : chosen.length;
    float[] w = new float[m];
    for (int i = 0; i < m; i++) {
      w[i] = fp[chosen == null ? i : chosen[i]];
    }
    Ops.softmax(w, m);
    for (int i = 0; i < d; i++) {
      out[qOff + i] = 0f;
    }
    for (int i = 0; i < m; i++) {
      float[] row = v[chosen == null ? i : chosen[i]];
      for (int c = 0; c < d; c++) {
        out[qOff + c] += w[i] * row[kvOff + c];
      }
    }
  }

  /**
   * Attention in INT8 over keys {@code 0..n}: scores {@code est · scoreScale / √d}, softmax (FP32), probabilities
   * to INT8 codes at {@code max/127}, values to INT8 codes per KV head {@code g} at {@code sv} (the head's own scale
   * over the prompt), the integer product dequantized into {@code out[outOff..outOff+d)}.
   */
  static void int8Full(float[][] v, int g, int d, int n, int[] est, float scoreScale, float sv, float[] out,
                       int outOff) {
    float[] p = new float[n];
    float inv = (float) (scoreScale / Math.sqrt(d));
    for (int t = 0; t < n; t++) {
      p[t] = est[t] * inv;
    }
    Ops.softmax(p, n);
    float pMax = 0f;
    for (int t = 0; t < n; t++) {
      pMax = Math.max(pMax, p[t]);
    }
    float sp = Math.max(HeadQuantizer.MIN_SCALE, pMax / 127f);
    for (int i = 0; i < d; i++) {
      long acc = 0;
      for (int t = 0; t < n; t++) {
        acc += HeadQuantizer.code(p[t], sp) * HeadQuantizer.code(v[t][g * d + i], sv);
      }
      out[outOff + i] = acc * sp * sv;
    }
  }
}
