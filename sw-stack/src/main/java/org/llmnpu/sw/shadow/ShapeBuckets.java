package org.llmnpu.sw.shadow;

/**
 * Context lengths the estimation graphs are built for (ShadowNPU's shape buckets): multiples of {@code step}
 * tokens up to {@code max}; a prompt of {@code n} tokens runs in the smallest bucket {@code ≥ n}, its keys and
 * queries padded with zero codes (their scores are ignored on the CPU side).
 */
public record ShapeBuckets(int step, int max) {
  public ShapeBuckets {
    if (step < 1 || step % 16 != 0) {
      throw new IllegalArgumentException("shape step must be a positive multiple of 16 tokens (the NPU's line), got " + step);
    }
    if (max < step) {
      throw new IllegalArgumentException("the largest shape (" + max + ") must be at least the step (" + step + ")");
    }
  }

  /** The padded length of a prompt of {@code n} tokens. */
  public int bucket(int n) {
    if (n < 1 || n > max) {
      throw new IllegalArgumentException("context must be in 1.." + max + " tokens, got " + n);
    }
    return (n + step - 1) / step * step;
  }

  /** Number of shapes (graphs per scale bucket). */
  public int count() {
    return (max + step - 1) / step;
  }
}
