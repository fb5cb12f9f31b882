package org.llmnpu.soc;

import java.util.List;

/**
 * One way to run a matrix product {@code [M,K]×[K,N]} (activation by weight) across the GPU and our NPU
 * (HeteroInfer, seed 002 section 4.2), and its cost. The NPU runs its parts one after the other, the GPU its part at
 * the same time; with parts on both the product takes
 * {@code max(npu, gpu, bytes / dramGBs) + sync}: the shared-DRAM contention model is that concurrent streams split
 * the DRAM's achievable bandwidth, so together they never move bytes faster than it; the sync is the fast
 * synchronization (predicted wait, then polling a flag) or a driver wait ({@link HostCosts}). A static-shape NPU
 * runs only standard row counts (1 and {@code npuStandardMin · 2^i}): a part of another row count is padded.
 *
 * @param kind    the partition kind
 * @param npuParts the NPU's parts as {rows (padded), cols}
 * @param gpuRows the GPU part's rows (0: none)
 * @param gpuCols the GPU part's columns
 * @param npuS    the NPU's seconds
 * @param gpuS    the GPU's seconds
 * @param syncS   the synchronization
 * @param bytes   DRAM bytes of both
 * @param timeS   the product's seconds
 * @param swapped whether the NPU runs its (largest) part in the swapped order ([K,N]×[N,M])ᵀ
 */
public record Partition(Kind kind, List<int[]> npuParts, int gpuRows, int gpuCols, double npuS, double gpuS,
                        double syncS, double bytes, double timeS, boolean swapped) {
  /** The partition kinds of HeteroInfer, and the single-backend ones. */
  public enum Kind {
    GPU_ONLY, NPU_ONLY, WEIGHT_CENTRIC, ACTIVATION_CENTRIC, MULTI_TENSOR, HYBRID;

    public String key() {
      return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
  }

  /** The NPU's share of the output columns (weight rows), or of the rows for activation partitions. */
  public double npuShare(int m, int n) {
    double npuWork = 0;
    for (int[] p : npuParts) {
      npuWork += Math.min(p[0], m) * (double) p[1];
    }
    return npuWork / ((double) m * n);
  }

  /**
   * Costs a candidate.
   *
   * @param sync seconds of one cross-backend synchronization
   * @param dramBytesPerS the shared DRAM's achievable bandwidth
   */
  static Partition cost(PartitionProfiler prof, Kind kind, int k, List<int[]> npuParts, int gpuRows, int gpuCols,
                        double sync, double dramBytesPerS) {
    double npu = 0;
    double bytes = 0;
    boolean swapped = false;
    long largest = -1;
    for (int[] p : npuParts) {
      npu += prof.npuS(p[0], k, p[1]);
      bytes += prof.bytes(p[0], k, p[1]);
      if ((long) p[0] * p[1] > largest) {
        largest = (long) p[0] * p[1];
        swapped = prof.npuChoice(p[0], k, p[1]).swapped();
      }
    }
    double gpu = 0;
    if (gpuRows > 0 && gpuCols > 0) {
      gpu = prof.gpuS(gpuRows, k, gpuCols);
      bytes += prof.bytes(gpuRows, k, gpuCols);
    }
    boolean both = npu > 0 && gpu > 0;
    double time = both ? Math.max(Math.max(npu, gpu), bytes / dramBytesPerS) + sync : npu + gpu;
    return new Partition(kind, List.copyOf(npuParts), gpuRows, gpuCols, npu, gpu, both ? sync : 0, bytes, time,
        swapped);
  }
}
