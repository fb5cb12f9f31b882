package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntToLongFunction;

/**
 * Items {@code first .. first + count − 1} at addresses {@code at(i)} split into maximal runs whose addresses lie
 * evenly apart (a positive step, a multiple of {@code align}), in order: the rows one strided copy command takes
 * ({@code dspin}/{@code dspout} with a spadStride, and since the DSP row stride also a DSP-side stride). Each run is
 * {first item, items, step}; a lone item's step is 0.
 */
final class EvenRuns {
  private EvenRuns() {
  }

  /** The runs of items {@code first .. first + count − 1}; a step must be positive and a multiple of {@code align}. */
  static List<long[]> of(int first, int count, IntToLongFunction at, long align) {
    List<long[]> runs = new ArrayList<>();
    int i = first;
    while (i < first + count) {
      long start = at.applyAsLong(i);
      int k = 1;
      long step = 0;
      if (i + 1 < first + count) {
        long next = at.applyAsLong(i + 1) - start;
        if (next > 0 && next % align == 0) {
          step = next;
          k = 2;
          while (i + k < first + count && at.applyAsLong(i + k) - start == k * step) {
            k++;
          }
        }
      }
      runs.add(new long[] {i, k, step});
      i += k;
    }
    return runs;
  }
}
