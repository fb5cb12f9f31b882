package org.llmnpu.sw.lower;

import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The K cache held transposed in {@link PhaseCostModel}'s extrapolated walk, as {@link TransposedKeys} keeps it: Kᵀ's
 * lines in before a block, the restaged earlier tokens of its first line, each token's scatter, a line's gather and
 * row writes as its last token arrives, the lines stored ({@link AttentionWalk} places them in its command order).
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
    return fusion == Fusion.FULL && blockMax >= 2 && TransposedKeys.fits(c, p);
  }

  /** As {@code TransposedKeys#writes}: a block of two tokens or more, or a lone token completing a line of slots. */
  boolean writesKeyLines(int n, int pos) {
    return keyScores() && (n >= 2 || (pos + n) % line == 0);
  }

  /** As {@code TransposedKeys#loadLines}: Kᵀ's complete lines before the block's first line, kvDim rows. */
  void keyLinesIn(int n, int pos) {
    int first = pos - pos % line;
    if (keyScores() && n >= 2 && first > 0) {
      load(c.kvDim(), first);
    }
  }

  /** As {@code KeyColumns#scatter}: a token's K codes to kvDim one-element staging lines. */
  private void keyScatter() {
    dspOut(c.kvDim(), 1, FP16);
  }

  /** As {@code TransposedKeys#restage}: the {@code early} earlier tokens of the block's first line, from K rows. */
  void keyRestage(int early) {
    for (int t = 0; t < early; t++) {
      dspIn(1, c.kvDim(), INT8);
      run(java.util.List.of("restage", c.kvDim()),
          () -> r.quantizeStatic(0, c.kvDim(), -1, (short) 0x3C00, 1, 2, (short) 0x3C00));
      keyScatter();
    }
  }

  /** As {@code TransposedKeys#scatter}: slot {@code slot}'s codes staged; the last of a line of slots writes it. */
  void keyScatter(int slot, int n, int pos) {
    keyScatter();
    int first = slot - slot % line;
    int count = Math.min(first + line, pos + n) - first;
    if (slot == first + count - 1) {
      keyLineWrite(count);
    }
  }

  /** As {@code KeyColumns#write}: a line's {@code count} staged tokens gathered and written as kvDim rows. */
  private void keyLineWrite(int count) {
    int kvDim = c.kvDim();
    long dspElements = 3L * scoreRows() * lanes;
    int rows = (int) Math.min(kvDim, Math.min(MachineParams.MAX_DMA_ROWS / count, dspElements / count));
    for (int d0 = 0; d0 < kvDim; d0 += rows) {
      int dc = Math.min(rows, kvDim - d0);
      dspIn((long) dc * count, 1, FP16);
      dspOut(dc, count, INT8);
    }
  }

  /** As {@code LoweringLayout#scoreRows} with the walk's head groups of {@link DspQuantizer#MAX_VECTORS}. */
  int scoreRows() {
    return Math.max(r.rows(Math.max(maxContext, c.vocabSize())), DspQuantizer.MAX_VECTORS * r.rows(maxContext));
  }
}
