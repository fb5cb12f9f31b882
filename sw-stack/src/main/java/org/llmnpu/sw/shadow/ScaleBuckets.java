package org.llmnpu.sw.shadow;

import java.util.Locale;

/**
 * The quantization scales the offline-built estimation graphs are made for (ShadowNPU's "static graphs bucketed by
 * scale"): {@code count} scales on a geometric grid, neighbours {@code step} apart (a ratio &gt; 1), centred on
 * {@code center} (the profiled median head scale): {@code scale(i) = center · step^(i − (count − 1)/2)}. Online, a
 * head takes the bucket whose scale is nearest its own in log distance ({@link #nearest}); a bucket smaller than the
 * head's scale saturates the head's largest values, a larger one loses resolution. The grid covers
 * {@code step^(count − 1)} of scale range: too few buckets or too fine a step leave heads outside it, too coarse a
 * step rounds every head's scale far.
 *
 * <p>{@code count = 0} stands for dynamic quantization (every head its own scale: the unbucketed upper bound).
 */
public record ScaleBuckets(int count, double step, double center) {
  public ScaleBuckets {
    if (count < 0 || count > 1024) {
      throw new IllegalArgumentException("bucket count must be in 0..1024 (0 = each head its own scale), got " + count);
    }
    if (count > 0 && !(step > 1.0 && step <= 16.0)) {
      throw new IllegalArgumentException("scale step must be a ratio in (1, 16], got " + step);
    }
    if (count > 0 && !(center > 0 && Double.isFinite(center))) {
      throw new IllegalArgumentException("bucket centre scale must be positive and finite, got " + center);
    }
  }

  /** Every head quantized at its own scale (no static graph constraint). */
  public static ScaleBuckets dynamic() {
    return new ScaleBuckets(0, 2.0, 1.0);
  }

  public boolean isDynamic() {
    return count == 0;
  }

  /** The scale of bucket {@code i}. */
  public double scale(int i) {
    if (i < 0 || i >= count) {
      throw new IllegalArgumentException("bucket index must be in 0.." + (count - 1) + ", got " + i);
    }
    return center * Math.pow(step, i - (count - 1) / 2.0);
  }

  /** The bucket whose scale is nearest {@code own} in log distance; {@code -1} when dynamic. */
  public int nearest(double own) {
    if (isDynamic()) {
      return -1;
    }
    double pos = Math.log(own / center) / Math.log(step) + (count - 1) / 2.0;
    return (int) Math.max(0, Math.min(count - 1, Math.round(pos)));
  }

  /** The scale a head of scale {@code own} is quantized at: its bucket's, or its own when dynamic. */
  public float scaleFor(float own) {
    return isDynamic() ? own : (float) scale(nearest(own));
  }

  @Override
  public String toString() {
    return isDynamic() ? "dynamic" : String.format(Locale.ROOT, "%d buckets, step %.3g", count, step);
  }
}
