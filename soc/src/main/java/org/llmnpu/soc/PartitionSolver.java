package org.llmnpu.soc;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.IntFunction;

/**
 * HeteroInfer's solver (seed 002 section 4.4): for a matrix product {@code [M,K]×[K,N]} it takes the best of every
 * partition kind ({@link Partition.Kind}) by the profiled costs ({@link PartitionProfiler}):
 * <ul>
 *   <li>GPU only; NPU only (rows padded to a standard size when the NPU runs static shapes);
 *   <li>weight-centric: the NPU takes {@code c} of the N weight columns (multiples of {@code colStep}), the GPU the
 *       rest, both over all rows;
 *   <li>activation-centric: the NPU takes the largest standard row count below M, the GPU the remaining rows;
 *   <li>multi-tensor: the NPU takes {@code q} chunks of a standard size S one after the other, the GPU the rest;
 *   <li>hybrid: the NPU takes a standard chunk S of rows whole, and of the remaining rows (padded) {@code c}
 *       columns; the GPU the remaining rows' other columns.
 * </ul>
 * Within a kind the split is found by bisection: the NPU side's time ({@code max(npu, bytes / dram)}) does not
 * decrease as the NPU takes more, the GPU's does not increase, so the best split is where they cross (the first
 * grid point where the NPU side is the longer one, or the point before it). The tests hold the solver's plan equal to
 * an exhaustive search.
 */
public final class PartitionSolver {
  private static final int MAX_STANDARD = 1 << 16;
  private final PartitionProfiler prof;
  private final int standardMin;
  private final int colStep;
  private final double syncS;
  private final double dramBytesPerS;
  private final boolean staticShapes;

  /**
   * @param standardMin   the smallest standard row count above 1 (standard: 1 and standardMin · 2^i)
   * @param colStep       the weight-split granularity in columns
   * @param syncS         one cross-backend synchronization
   * @param dramBytesPerS the shared DRAM's achievable bandwidth
   * @param staticShapes  whether the NPU runs only standard row counts
   */
  public PartitionSolver(PartitionProfiler prof, int standardMin, int colStep, double syncS, double dramBytesPerS,
                         boolean staticShapes) {
    if (standardMin < 2 || Integer.bitCount(standardMin) != 1) {
      throw new IllegalArgumentException("npuStandardMin must be a power of two >= 2, got " + standardMin);
    }
    this.prof = prof;
    this.standardMin = standardMin;
    this.colStep = colStep;
    this.syncS = syncS;
    this.dramBytesPerS = dramBytesPerS;
    this.staticShapes = staticShapes;
  }

  /** The row count a static-shape NPU runs for {@code rows}: the smallest standard size not below it. */
  public int pad(int rows) {
    if (!staticShapes || rows <= 1) {
      return rows;
    }
    int s = standardMin;
    while (s < rows && s < MAX_STANDARD) {
      s *= 2;
    }
    return Math.max(s, rows);
  }

  /** The standard chunk sizes below {@code m} (empty when M is at most the smallest). */
  public List<Integer> standardsBelow(int m) {
    List<Integer> out = new ArrayList<>();
    for (int s = standardMin; s < m; s *= 2) {
      out.add(s);
    }
    return out;
  }

  /** The weight-split points: {@code c = colStep, 2·colStep, …} below N. */
  public int splits(int n) {
    return Math.max(0, (n - 1) / colStep);
  }

  /** The best partition of {@code [m,k]×[k,n]}. */
  public Partition solve(int m, int k, int n) {
    return bestOfEachKind(m, k, n).stream().min(Comparator.comparingDouble(Partition::timeS)).orElseThrow();
  }

  /** The best partition of each applicable kind (the rows of the paper's Table 3). */
  public List<Partition> bestOfEachKind(int m, int k, int n) {
    List<Partition> out = new ArrayList<>();
    out.add(cost(Partition.Kind.GPU_ONLY, k, List.of(), m, n));
    out.add(cost(Partition.Kind.NPU_ONLY, k, List.of(new int[] {pad(m), n}), 0, 0));
    int splits = splits(n);
    if (splits > 0) {
      out.add(bisect(splits, i -> {
        int c = (i + 1) * colStep;
        return cost(Partition.Kind.WEIGHT_CENTRIC, k, List.of(new int[] {pad(m), c}), m, n - c);
      }));
    }
    List<Integer> standards = standardsBelow(m);
    if (!standards.isEmpty()) {
      int s = standards.get(standards.size() - 1);
      out.add(cost(Partition.Kind.ACTIVATION_CENTRIC, k, List.of(new int[] {s, n}), m - s, n));
    }
    Partition multi = null;
    Partition hybrid = null;
    for (int s : standards) {
      int chunks = (m - 1) / s;
      Partition mt = bisect(chunks, i -> {
        List<int[]> parts = new ArrayList<>();
        for (int q = 0; q <= i; q++) {
          parts.add(new int[] {s, n});
        }
        return cost(Partition.Kind.MULTI_TENSOR, k, parts, m - (i + 1) * s, n);
      });
      multi = better(multi, mt);
      int rest = m - s;
      if (splits > 0) {
        Partition hy = bisect(splits, i -> {
          int c = (i + 1) * colStep;
          return cost(Partition.Kind.HYBRID, k, List.of(new int[] {s, n}, new int[] {pad(rest), c}), rest, n - c);
        });
        hybrid = better(hybrid, hy);
      }
    }
    if (multi != null) {
      out.add(multi);
    }
    if (hybrid != null) {
      out.add(hybrid);
    }
    return out;
  }

  private static Partition better(Partition a, Partition b) {
    return a == null || b.timeS() < a.timeS() ? b : a;
  }

  /**
   * The best of {@code count} candidates indexed by how much the NPU takes: the first index whose NPU side is at
   * least the GPU's, or the one before it.
   */
  private Partition bisect(int count, IntFunction<Partition> at) {
    if (count <= 0) {
      return null;
    }
    int lo = 0;
    int hi = count - 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      Partition p = at.apply(mid);
      if (npuSide(p) >= p.gpuS()) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    Partition best = at.apply(lo);
    if (lo > 0) {
      best = better(best, at.apply(lo - 1));
    }
    return best;
  }

  private double npuSide(Partition p) {
    return Math.max(p.npuS(), p.bytes() / dramBytesPerS);
  }

  /** Costs a candidate (see {@link Partition}). */
  public Partition cost(Partition.Kind kind, int k, List<int[]> npuParts, int gpuRows, int gpuCols) {
    return Partition.cost(prof, kind, k, npuParts, gpuRows, gpuCols, syncS, dramBytesPerS);
  }
}
