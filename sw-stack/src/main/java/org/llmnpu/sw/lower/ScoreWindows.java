package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The unfused attention's scores GEMV windows ({@code --fusion none}/{@code vertical}; {@link AttentionLowering#heads}
 * and its walk twin {@link AttentionWalk#groupProbabilities}): a query head's scores over its own KV head's codes
 * instead of all kvDim.
 *
 * <p>Unfused, a K row holds the cache slot's codes evens then odds ({@code kvDim} INT8: KV head g's evens at
 * {@code [g·half, (g+1)·half)}, its odds at {@code [nk + g·half, nk + (g+1)·half)}, half = headDim/2, nk = kvDim/2),
 * and a head's query is a weight column of kvDim rows whose other heads' rows are zero. Each K chunk of the flat
 * scores ({@link KSplit} of kvDim, chunks line-aligned) is cut to the smallest line-aligned window that holds the
 * head's rows in it: from the line holding its first head row to its last head row; chunks with none of them are
 * dropped. A window's GEMM partial is the chunk's partial (the rows dropped have zero weights), and the partials
 * dropped are zeros, which the FP32 sum of {@link DspRoutines#sumPartials} adds exactly: the same scores, FP16 for
 * FP16. On LLaMA-2-7B (headDim 128, 64-byte line) a head's two windows are its 64 evens and 64 odds (K = 128 in
 * all, against kvDim 4096); where a half is not whole lines (a ragged headDim) the windows start on the line before.
 *
 * <p>Cycles: one {@code gemm} per window and tile of maxM slots, then {@link DspRoutines#sumPartials} over the
 * windows (none for one window) — the lowering and the walk both take the windows from here.
 */
final class ScoreWindows {
  private ScoreWindows() {
  }

  /**
   * KV head g's windows over the chunks of {@code split} (the flat scores' split of kvDim), in chunk order: each
   * {start, K}, start a multiple of {@code line} (a K-row byte and the weight column's row).
   */
  static List<int[]> of(ModelConfig c, KSplit split, int line, int g) {
    int half = c.headDim() / 2;
    int nk = c.kvHeads() * half;
    int[][] rows = {{g * half, (g + 1) * half}, {nk + g * half, nk + (g + 1) * half}};
    List<int[]> windows = new ArrayList<>();
    for (int ci = 0; ci < split.count(); ci++) {
      int a = split.start(ci);
      int b = a + split.length(ci);
      int lo = Integer.MAX_VALUE;
      int hi = -1;
      for (int[] span : rows) {
        int from = Math.max(a, span[0]);
        int to = Math.min(b, span[1]);
        if (from < to) {
          lo = Math.min(lo, from);
          hi = Math.max(hi, to);
        }
      }
      if (hi < 0) {
        continue;
      }
      int start = Math.max(a, lo / line * line);
      windows.add(new int[] {start, hi - start});
    }
    return windows;
  }

  /**
   * The partials of {@code windows} as {@link LoweringEmitter#partialsIn} and the walk's {@code partialsIn} read them:
   * a chunk per window (its count only is read; K the windows' sum).
   */
  static KSplit partials(List<int[]> windows) {
    int k = 0;
    int tile = 0;
    for (int[] w : windows) {
      k += w[1];
      tile = Math.max(tile, w[1]);
    }
    return new KSplit(k, tile, windows.size(), false);
  }
}
