package org.llmnpu.sw.lower;

import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The K cache held transposed in {@link PhaseCostModel}'s extrapolated walk, as {@link TransposedKeys} keeps it: Kᵀ's
 * lines in before a block, a line's slots staged in pairs from their K rows, gathered and written as its last token
 * arrives, the lines stored ({@link AttentionWalk} places them in its command order).
 */
abstract class KeyWalk extends PhaseWalk {
  KeyWalk(ModelConfig c, MachineParams p, int maxContext, int blockMax, boolean extrapolate,
          int weightBits, int weightGroup, int sparsity, int mxFormat, Fusion fusion) {
    super(c, p, maxContext, blockMax, extrapolate, weightBits, weightGroup, sparsity, mxFormat, fusion);
  }

  /**
   * Whether the scores take the K cache held transposed as their W ({@link TransposedKeys}): at {@code --fusion full}
   * where the NPU allows (the walk takes the scratchpad to hold the regions for the block).
   */
  boolean keyScores() {
    return fusion == Fusion.FULL && blockMax >= 2 && TransposedKeys.fits(c, p)
        && (keyBlockColumns() > 0 || TransposedKeys.pairRows(p, r.rows(c.kvDim()), scoreRows()));
  }

  /** As {@code TransposedKeys#byBlocks}: the dimensions a chunk of {@link KeyBlocks} transposes, 0 without permute. */
  private int keyBlockColumns() {
    return KeyBlocks.columns(p, c.kvDim(), 3 * scoreRows());
  }

  /** As {@code TransposedKeys#writes}: a block of two tokens or more, or a lone token completing a line of slots. */
  boolean writesKeyLines(int n, int pos) {
    return keyScores() && (n >= 2 || (pos + n) % line == 0);
  }

  /** Whether the QKV post goes tile by tile ({@code QkvPostWalk#qkvPostTiled}). */
  abstract boolean qkvPostTiled();

  /**
   * As {@code AttentionLowering#keysAfterCache}: with the tiled post in a skewed head, whether the block's first line
   * of Kᵀ holds earlier slots, whose K rows come with the cache's rows in the tail ({@link #tiledKeysInTail}).
   */
  boolean keysAfterCache(int pos) {
    return qkvPostTiled() && pos % line != 0;
  }

  /** In a skewed tail after the cache's rows: the Kᵀ lines the head left ({@link #keysAfterCache}). */
  void tiledKeysInTail(int n, int pos) {
    if (keysAfterCache(pos)) {
      operator("QKV scale, RoPE, K/V out");
      tiledKeyLines(n, pos);
    }
  }

  /** As {@code TiledQkvPost#keyLines}: every token's lines of Kᵀ, where the lowering keeps Kᵀ. */
  void tiledKeyLines(int n, int pos) {
    if (writesKeyLines(n, pos)) {
      for (int t = 0; t < n; t++) {
        keyScatter(pos + t, n, pos);
      }
    }
  }

  /** As {@code TransposedKeys#loadLines}: Kᵀ's complete lines before the block's first line, kvDim rows. */
  void keyLinesIn(int n, int pos) {
    int first = pos - pos % line;
    if (keyScores() && n >= 2 && first > 0) {
      cacheLoad(c.kvDim(), first);
    }
  }

  /**
   * As {@code TransposedKeys#scatter}: the last slot of a line of slots stages the line's slots in pairs from their K
   * rows ({@code KeyColumns#pairs}) and writes the line, or with permute transposes them ({@code KeyBlocks#write}).
   */
  void keyScatter(int slot, int n, int pos) {
    int first = slot - slot % line;
    int count = Math.min(first + line, pos + n) - first;
    if (slot != first + count - 1) {
      return;
    }
    int kvDim = c.kvDim();
    int columns = keyBlockColumns();
    if (columns > 0) {
      int out = line * columns / lanes;
      for (int d0 = 0; d0 < kvDim; d0 += columns) {
        dspIn(count, columns, INT8);
        run(java.util.List.of("keyBlock", count, columns), () -> r.keyBlock(line, count, columns, 0, out));
        dspOut(columns, line, INT8);
      }
      return;
    }
    int kvRows = r.rows(kvDim);
    int chunk = TransposedKeys.pairChunk(kvDim, lanes, kvRows, scoreRows());
    for (int j0 = 0; j0 < count / 2; j0 += chunk) {
      int k = Math.min(chunk, count / 2 - j0);
      dspIn(k, kvDim, INT8);
      dspIn(k, kvDim, INT8);
      // the lowering's pairs of a block go on the same DSP rows (KeyColumns#pairs): one program
      boolean shared = sharedRuns;
      sharedRuns = true;
      run(java.util.List.of("keyPair", kvDim, k), () -> r.keyPair(0, k * kvRows, k * kvDim, 0));
      sharedRuns = shared;
      for (int i = 0; i < k; i++) {
        dspOut(kvDim, 1, FP16);
      }
    }
    if (count % 2 == 1) {
      dspIn(1, kvDim, INT8);
      run(java.util.List.of("keyPair", kvDim, 0), () -> r.keyPair(0, -1, kvDim, 0));
      dspOut(kvDim, 1, FP16);
    }
    keyLineWrite(count);
  }

  /** As {@code KeyColumns#write}: a line's {@code count} staged codes gathered and written as kvDim rows. */
  private void keyLineWrite(int count) {
    int kvDim = c.kvDim();
    int pairs = KeyColumns.pairs(count);
    boolean odd = count % 2 == 1;
    long dspElements = 3L * scoreRows() * lanes;
    long budget = odd ? (dspElements / lanes - 1) * lanes : dspElements;
    int rows = (int) Math.min(kvDim, Math.min(MachineParams.MAX_DMA_ROWS / pairs, budget / (2L * pairs)));
    for (int d0 = 0; d0 < kvDim; d0 += rows) {
      int dc = Math.min(rows, kvDim - d0);
      dspIn((long) dc * pairs, 1, FP16);
      dspOut(dc, pairs, FP16);
      if (odd) {
        dspIn(dc, count, INT8);
        int len = dc * count;
        // the lowering's unpacking runs are on the same DSP rows (KeyColumns#write): one program
        boolean shared = sharedRuns;
        sharedRuns = true;
        run(java.util.List.of("keyUnpack", len),
            () -> r.quantizeStatic(0, len, -1, (short) 0x3C00, 0, r.rows(len), (short) 0x3C00));
        sharedRuns = shared;
        dspOut(dc, count, INT8);
      }
    }
  }

  /** As {@code LoweringLayout#scoreRows} with the walk's head groups of {@link DspQuantizer#MAX_VECTORS}. */
  int scoreRows() {
    return Math.max(r.rows(Math.max(maxContext, c.vocabSize())), DspQuantizer.MAX_VECTORS * r.rows(maxContext));
  }
}
