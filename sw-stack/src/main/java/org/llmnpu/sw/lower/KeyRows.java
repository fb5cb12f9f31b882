package org.llmnpu.sw.lower;

import org.llmnpu.isa.Command;

/**
 * A token's K codes to its K cache row head-major ({@link BatchedAttentionLayout#headMajorKeys}): per KV head its
 * {@code half} evens, then its odds, heads {@code headDim} apart. The DSP holds the codes flat ({@code l.rKQ}: the
 * evens of every KV head, then the odds), so the codes are the same and only their places in the row change.
 *
 * <p><b>Direct</b> ({@link BatchedAttentionLayout#directKeys}: a half is whole lines): two {@code dspout}s of one row a
 * head, the evens to {@code g·headDim} and the odds to {@code g·headDim + half} (a {@code dspout} reads its rows
 * packed one after the other from a DSP row, so a half need not fill whole DSP rows). <b>Staged</b> (a half fits a
 * line as FP16): the DSP cannot move lanes up, so the evens and the odds go out as FP16 (the codes' raw 16 bits),
 * {@code half} to a line, interleaved line by line (head g's evens on line 2g, its odds on 2g + 1), come back {@code
 * half} a line into one flat vector (at {@code l.rAcc}, free between the Q/K/V dequantization and the next token's) and
 * go out as INT8 codes.
 *
 * <p><b>Cycles.</b> Direct: two {@code dspout}s of {@code kvHeads} rows of {@code half} INT8 codes. Staged: two FP16
 * {@code dspout}s of {@code kvHeads} rows, one {@code dspin} of {@code 2·kvHeads} rows of {@code half}, one INT8
 * {@code dspout} of the row.
 */
final class KeyRows {
  private final LoweringEmitter e;
  private final LoweringLayout l;
  /** Scratchpad lines through which a staged K row is re-laid out head by head, -1 when direct. */
  private final int sStage;

  KeyRows(LoweringEmitter emitter) {
    this.e = emitter;
    this.l = emitter.l;
    sStage = BatchedAttentionLayout.directKeys(l.c, l.p) ? -1
        : l.spadRegion(2L * l.c.kvHeads() * l.line, "the K rows' head-major staging");
  }

  /** Every KV head's codes to the K cache row at {@code spad}. */
  void out(long spad) {
    out(spad, 0, l.c.kvHeads());
  }

  /** KV heads {@code first..first+heads-1} only ({@link TiledQkvPost}: one QKV tile's). */
  void out(long spad, int first, int heads) {
    var b = e.b;
    int line = l.line;
    int headDim = l.c.headDim();
    int evens = l.rKQ + first * l.half / l.lanes;
    int odds = evens + l.r.rows(l.nk);
    if (sStage < 0) {
      b.dspOut(spad + (long) first * headDim, headDim, l.half, heads, evens, Command.FMT_INT8);
      b.dspOut(spad + (long) first * headDim + l.half, headDim, l.half, heads, odds, Command.FMT_INT8);
      return;
    }
    long stage = sStage + 2L * first * line;
    b.dspOut(stage, 2L * line, l.half, heads, evens, Command.FMT_FP16);
    b.dspOut(stage + line, 2L * line, l.half, heads, odds, Command.FMT_FP16);
    b.dspIn(stage, line, l.half, 2 * heads, l.rAcc, Command.FMT_FP16, 0);
    b.dspOut(spad + (long) first * headDim, line, heads * headDim, 1, l.rAcc, Command.FMT_INT8);
  }
}
