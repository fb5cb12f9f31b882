package org.llmnpu.pim;

/**
 * Cycle formula of a GEMM {@code Y[M×N] = X[M×K] · W[K×N]} on the PiM macro, with the command order
 * of {@link PimMacroDriver}: for each N tile ({@code cols} outputs), for each M chunk
 * ({@code mTile} vectors, the psum bank depth), for each row group ({@code rows} of K): write the
 * weight tile, then stream the chunk's input vectors.
 *
 * <pre>
 *   C       = ceil(serialBits / bitsPerCycle)          cycles per MVM (bit-serial passes)
 *   W       = rows (+1 for PRE: the column exponents)  weight-write cycles per tile
 *   cycles  = nTiles · kTiles · (mChunks · W + M · C) + 1 + S
 * </pre>
 * with {@code nTiles = ceil(N/cols)}, {@code kTiles = ceil(K/rows)}, {@code mChunks = ceil(M/mTile)}.
 * The first vector of a tile is accepted in the tile's last write cycle, vectors then stream back
 * to back (one per C cycles), the next tile's writes start right after the last vector's last
 * chunk (they overlap its periphery cycle), and the +1 + S is the last vector's periphery cycle, in
 * which the last result leaves: {@code S = stages}, the column pipeline registers between a chunk and its
 * shift-and-add, delay every periphery cycle but not the array's occupancy. With one weight bank the array cannot compute while it is written,
 * which is why decode GEMVs (M = 1) are dominated by the W term.
 *
 * <p>With two banks ({@code weightBanks = 2}) tile j+1 is written into the shadow bank from the
 * cycle after tile j's first vector swapped the banks, so with {@code mc_j} the vectors of tile j:
 * <pre>
 *   cycles  = W + Σ_{j &lt; T−1} max(W, mc_j · C) + mc_{T−1} · C + 1 + S      (T tiles in order)
 * </pre>
 *
 * <p>Psum traffic (elements of {@code accWidth} bits): row groups are folded {@code icAccumDepth}
 * at a time, so {@code psumWritebacks = psumReadbacks = (kGroups − 1) · M · N}, plus {@code M · N}
 * final results.
 */
public final class PimCycleModel {
  private PimCycleModel() {
  }

  public static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }

  /** Cycles of the whole GEMM from the first weight write to the cycle the last result leaves. */
  public static long gemmCycles(PimMacroConfig c, int m, int k, int n) {
    long nTiles = ceilDiv(n, c.cols());
    long kTiles = ceilDiv(k, c.rows());
    long mChunks = ceilDiv(m, c.mTile());
    long w = c.tileWriteCycles();
    long cpm = c.cyclesPerMvm();
    if (!c.doubleBuffered()) {
      return nTiles * kTiles * (mChunks * w + (long) m * cpm) + 1 + c.stages();
    }
    long total = w + 1 + c.stages();
    long tiles = nTiles * mChunks * kTiles;
    long done = 0;
    for (long nt = 0; nt < nTiles; nt++) {
      for (long m0 = 0; m0 < m; m0 += c.mTile()) {
        long mc = Math.min(c.mTile(), m - m0);
        for (long kt = 0; kt < kTiles; kt++) {
          done++;
          total += done < tiles ? Math.max(w, mc * cpm) : mc * cpm;
        }
      }
    }
    return total;
  }

  /** Row groups folded per psum write-back for a K (all of them when icAccumDepth is 0). */
  public static long groupsPerFold(PimMacroConfig c, int k) {
    long kTiles = ceilDiv(k, c.rows());
    return c.foldsAllRowGroups() ? kTiles : Math.min(c.icAccumDepth(), kTiles);
  }

  /** Psum elements written back (and read back) before the final results. */
  public static long psumWritebacks(PimMacroConfig c, int m, int k, int n) {
    long kTiles = ceilDiv(k, c.rows());
    long folds = ceilDiv(kTiles, groupsPerFold(c, k));
    return (folds - 1) * (long) m * n;
  }

  /** MAC operations the GEMM needs divided by what the array could do in its cycles. */
  public static double utilization(PimMacroConfig c, int m, int k, int n) {
    double macs = (double) m * k * n;
    double capacity = (double) c.rows() * c.cols() * gemmCycles(c, m, k, n) / c.cyclesPerMvm();
    return macs / capacity;
  }
}
