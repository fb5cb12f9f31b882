package org.llmnpu.sw.lower;

import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;

/**
 * Attention scores {@code S = Q·Kᵀ} of a prefill block against a K cache held transposed ({@link KeyColumns}), the
 * queries as the GEMM's X (issue 32; {@link BatchedAttention} at {@code --fusion full}, sw-stack README <i>Scores against Kᵀ</i>): a row of
 * INT32 scores per query, which one {@code dspin} takes into the DSP, instead of {@code Sᵀ = K·Qᵀ} and its scatters.
 *
 * <p><b>Layouts.</b> {@code Kᵀ} row {@code e} is element e of the DSP's flat K vector (the evens of every KV head,
 * then the odds: {@link KeyColumns#pairs} keeps it), so KV head g's evens are rows {@code g·half ..} and its
 * odds rows {@code nk + g·half ..}. X holds, per token t and head h, the query's evens on one row and its odds on the
 * next ({@link #xRow} bytes each, line-aligned): head h's scores are two GEMMs, the evens' and then the odds'
 * accumulating ({@code accumulate = 1}), M = the block's tokens (X rows {@code heads·2·xRow} apart), K = half,
 * N = the slots in tiles of maxN (Kᵀ's row stride as W's). Y: a row per token ({@link #yStride}), one head's scores of
 * the block a Y slot ({@link #yBytes} apart), so that a head group's scores wait together.
 *
 * <p><b>Numerics.</b> Each INT32 score is the query's dot product with the slot's K codes (a K split into two
 * accumulating GEMMs equals the whole GEMM while no accumulator saturates: |score| ≤ 127²·headDim), the same integer
 * as the scores GEMV over K rows, so the scores' {@code dspin} (INT32 → FP16 with the scores' shift) gives the same
 * FP16 values. A query of slot {@code pos + t} reads only its first {@code pos + t + 1} scores (the causal mask).
 *
 * <p><b>Cycles.</b> Per token one or two {@code dspout}s of the queries ({@link #queriesOut}); per head and N tile of
 * the slots two GEMMs per M tile of maxM tokens; per token and head group one {@code dspin} of its heads' scores
 * ({@link #groupScoresIn}, a DSP row stride).
 */
final class KeyScores {
  private final MachineParams p;
  private final int heads;
  private final int half;
  private final int nk;
  private final int groupSize;
  private final int headDim;
  private final boolean headMajor;
  private final long sX;
  private final long sY;
  private final int maxTokens;
  /** Bytes of one X row (a query's evens or odds), line-aligned. */
  final int xRow;
  /** Bytes between two tokens' score rows of a head in Y. */
  final long yStride;

  /**
   * @param sX        scratchpad X region ({@link #xBytes}), line-aligned
   * @param sY        scratchpad Y region ({@link #yBytes}: one head's scores of a block), line-aligned
   * @param maxSlots  the most slots a block's queries attend to (Y's row length)
   */
  KeyScores(MachineParams p, int heads, int kvHeads, int headDim, long sX, long sY, int maxTokens, int maxSlots) {
    this(p, heads, kvHeads, headDim, false, sX, sY, maxTokens, maxSlots);
  }

  /** As above; {@code headMajor}: {@code Kᵀ}'s rows in the head-major K rows' order. */
  KeyScores(MachineParams p, int heads, int kvHeads, int headDim, boolean headMajor, long sX, long sY, int maxTokens,
            int maxSlots) {
    this.p = p;
    this.headDim = headDim;
    this.headMajor = headMajor;
    this.heads = heads;
    this.half = headDim / 2;
    this.nk = kvHeads * half;
    this.groupSize = heads / kvHeads;
    this.sX = sX;
    this.sY = sY;
    this.maxTokens = maxTokens;
    this.xRow = LoweredModel.roundUp(half, p.lineBytes());
    this.yStride = LoweredModel.roundUp(4L * maxSlots, p.lineBytes());
    if (headDim % 2 != 0 || heads % kvHeads != 0 || sX % p.lineBytes() != 0 || sY % p.lineBytes() != 0) {
      throw new IllegalArgumentException("KeyScores needs an even head dim, heads a multiple of kvHeads and "
          + "line-aligned regions, got headDim " + headDim + ", heads " + heads + ", kvHeads " + kvHeads + ", X " + sX
          + ", Y " + sY);
    }
    if (p.maxN() % p.lineBytes() != 0) {
      throw new IllegalArgumentException("KeyScores tiles N by maxN " + p.maxN() + ", not a multiple of the line "
          + p.lineBytes());
    }
  }

  /** Scratchpad bytes of X for {@code maxTokens} tokens. */
  static long xBytes(MachineParams p, int heads, int headDim, int maxTokens) {
    return (long) maxTokens * heads * 2 * LoweredModel.roundUp(headDim / 2, p.lineBytes());
  }

  /** Scratchpad bytes of Y: one head's scores of {@code maxTokens} tokens over {@code maxSlots} slots. */
  static long yBytes(MachineParams p, int maxTokens, int maxSlots) {
    return (long) maxTokens * LoweredModel.roundUp(4L * maxSlots, p.lineBytes());
  }

  /**
   * Token t's query codes ({@code TOINT} results) to its X rows. {@code ownRows} false: every head's evens flat from
   * DSP row {@code evens}, every head's odds flat from row {@code odds} (a {@code dspout} reads its rows packed one
   * after the other, so a half need not fill whole DSP rows); true: head h's
   * evens at lane 0 of row {@code evens + h}, its odds of row {@code odds + h} (the lowering's query halves), written
   * a whole DSP row an X row (the lanes past the half land in X bytes no GEMM reads).
   */
  void queriesOut(CommandStream b, int t, int evens, int odds, boolean ownRows) {
    if (t < 0 || t >= maxTokens) {
      throw new IllegalArgumentException("KeyScores token " + t + " outside 0.." + (maxTokens - 1));
    }
    int lanes = p.dsp().lanes();
    int elems = ownRows ? lanes : half;
    if (ownRows && lanes > xRow) {
      throw new IllegalArgumentException("KeyScores: a DSP row of " + lanes + " lanes does not fit an X row of "
          + xRow + " bytes");
    }
    long x = sX + (long) t * heads * 2 * xRow;
    b.dspOut(x, 2L * xRow, elems, heads, evens, Command.FMT_INT8);
    b.dspOut(x + xRow, 2L * xRow, elems, heads, odds, Command.FMT_INT8);
  }

  /**
   * Head h's scores of block tokens {@code 0 .. n − 1} over slots {@code 0 .. s − 1} into Y (a row per token), from
   * {@code Kᵀ} at {@code kT} (row stride {@code kTStride}).
   */
  void scores(CommandStream b, int h, int n, int s, long kT, long kTStride) {
    scores(b, h, n, s, kT, kTStride, 0);
  }

  /** As above into Y slot {@code ySlot} (a head group's heads in slots of their own). */
  void scores(CommandStream b, int h, int n, int s, long kT, long kTStride, int ySlot) {
    if (n < 1 || n > maxTokens || s < 1 || 4L * s > yStride) {
      throw new IllegalArgumentException("KeyScores: " + n + " tokens over " + s + " slots, allowed 1.." + maxTokens
          + " tokens and 1.." + yStride / 4 + " slots");
    }
    int g = h / groupSize;
    long xStride = (long) heads * 2 * xRow;
    long evensW = kT + (long) (headMajor ? g * headDim : g * half) * kTStride;
    long oddsW = kT + (long) (headMajor ? g * headDim + half : nk + g * half) * kTStride;
    for (int n0 = 0; n0 < s; n0 += p.maxN()) {
      int nn = Math.min(p.maxN(), s - n0);
      for (int m0 = 0; m0 < n; m0 += p.maxM()) {
        int mm = Math.min(p.maxM(), n - m0);
        long x = sX + (long) h * 2 * xRow + m0 * xStride;
        long y = sY + ySlot * (maxTokens * yStride) + m0 * yStride + 4L * n0;
        b.add(new Command.Gemm(mm, half, nn, x, xStride, evensW + n0, kTStride, y, yStride, Command.DENSE, 0));
        b.add(new Command.Gemm(mm, half, nn, x + xRow, xStride, oddsW + n0, kTStride, y, yStride, Command.DENSE, 1));
      }
    }
  }

  /** Token t's first {@code s} scores (its causal slots) into the DSP from row {@code dst}, INT32 → FP16 · 2^shift. */
  void scoresIn(CommandStream b, int t, int s, int dst, int shift) {
    scoresIn(b, t, s, dst, shift, 0);
  }

  /** As above from Y slot {@code ySlot}. */
  void scoresIn(CommandStream b, int t, int s, int dst, int shift, int ySlot) {
    b.dspIn(sY + ySlot * (maxTokens * yStride) + t * yStride, yStride, s, 1, dst, Command.FMT_INT32, shift);
  }

  /**
   * Token t's first {@code s} scores of Y slots {@code 0 .. heads − 1} (a head group's heads) in one {@code dspin}:
   * slot i's to DSP row {@code dst + i·dstRows} (the {@code dspin}'s DSP row stride; {@code s ≤ dstRows·lanes}), the
   * same values and rows as {@code heads} one-slot {@link #scoresIn}s, in {@code heads·ceil(s/E) + 1} cycles.
   */
  void groupScoresIn(CommandStream b, int t, int s, int dst, int shift, int heads, int dstRows) {
    if (heads < 1 || (heads > 1 && (long) dstRows * p.dsp().lanes() < s)) {
      throw new IllegalArgumentException("KeyScores: " + heads + " heads' " + s + " scores need 1.. heads and DSP rows "
          + "of at least " + s + " elements apart, got " + dstRows + " rows of " + p.dsp().lanes() + " lanes");
    }
    b.dspIn(sY + t * yStride, (long) maxTokens * yStride, s, heads, dst, Command.FMT_INT32, shift,
        heads > 1 ? dstRows : 0);
  }
}
