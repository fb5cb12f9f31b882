package org.llmnpu.sw.lower;

import org.llmnpu.isa.Command;

/**
 * The attention scores of a batch at {@code --fusion full} as one GEMM per KV head ({@link BatchedAttention}'s
 * batched scores): {@code Sᵀ = K_cache · Qᵀ} over a sub-batch of {@link #scoreTokens} tokens (X = the cached K rows in
 * a query GEMV's K window, W = the KV head's queries as columns, N = group size × tokens) instead of one GEMV per
 * query and M chunk. {@code dspout} and {@code dspin} need line-aligned scratchpad addresses, so the codes and the
 * scores are transposed through rows of one element a line: the query codes scattered, gathered into the rows of
 * {@code Qᵀ}; each {@code Sᵀ} chunk scattered, each query's scores gathered as its GEMV's column was read. The integers
 * and the FP16 scores are the GEMVs' (logits bit for bit, {@code FusedLoweringTest}).
 *
 * <p>Scratchpad: the query codes of a head group's KV heads ({@code kvSlots · headDim · N} lines), each KV head's
 * {@code Qᵀ}, one {@code Sᵀ} chunk, the scores of a head group's KV heads ({@code kvSlots · maxContext · N} lines),
 * for as many tokens as the free bytes take (at least two). DSP: the scores phase's own rows ({@code rP}, {@code rSc2}).
 */
final class BatchedScores {
  private final BatchedAttention a;
  private final LoweringEmitter e;
  private final LoweringLayout l;
  /** Whether the scores are batched: one K chunk, the queries within a GEMM's N and the regions below fit. */
  final boolean applies;
  /** Tokens whose scores are batched (at most the batch's: as many as the scratchpad's regions take). */
  final int scoreTokens;
  /** Queries of a KV head in a scores batch: the GEMM's largest N ({@code groupSize · scoreTokens}). */
  private final int kvQueries;
  /** KV heads whose scores a head group needs at once (its heads' KV heads). */
  private final int kvSlots;
  /** Query codes, one FP16 a line: slot, head-local row q (evens then odds), column j = line (slot·hd + q)·N + j. */
  private final int sQueryCodes;
  /** Each KV head's {@code Qᵀ}: its score K rows (zero but the head's) of N INT8 codes, {@link #qtStride} apart. */
  private final int sQt;
  private final int qtStride;
  private final long qtBytes;
  /** One M chunk of {@code Sᵀ = K·Qᵀ} (INT32, a row per slot), {@link #stStride} apart. */
  private final int sSt;
  private final int stStride;
  /** The scores one FP16 a line: slot (KV head of the group), cache slot i, column j at line (slot·ctx + i)·N + j. */
  private final int sScores;

  BatchedScores(BatchedAttention a) {
    this.a = a;
    this.e = a.e;
    this.l = a.e.l;
    var c = l.c;
    int line = l.line;
    kvSlots = kvHeadsPerGroup(c, l.headGroup);
    qtStride = LoweredModel.roundUp((long) a.groupSize * a.batchTokens, line);
    qtBytes = (long) (a.headMajorKeys ? BatchedAttentionLayout.maxWindowK(c, line) : c.kvDim()) * qtStride;
    // the most tokens whose queries' scores fit the scratchpad's free bytes (at least two, else per-query GEMVs)
    long free = l.p.spadBytes() - l.spadBytesUsed() - c.kvHeads() * qtBytes
        - (long) l.blockMax * l.ropeRowBytes - 4L * line;
    int tokens = fits(c, l.p, a.scoreSplit, a.groupSize * a.batchTokens) ? a.batchTokens : 0;
    while (tokens >= 2 && scoresBytes(a.groupSize * tokens) > free) {
      tokens--;
    }
    applies = tokens >= 2 && 2 * l.r.rows(l.half * a.groupSize * tokens) <= l.scoreRows
        && (long) l.scoreRows * l.lanes >= (long) a.groupSize * tokens;
    scoreTokens = applies ? tokens : 0;
    kvQueries = a.groupSize * scoreTokens;
    stStride = LoweredModel.roundUp(4L * Math.max(1, kvQueries), line);
    sQueryCodes = applies ? l.spadRegion((long) kvSlots * c.headDim() * kvQueries * line,
        "the batched scores' query codes") : -1;
    sQt = applies ? l.spadRegion(c.kvHeads() * qtBytes, "the batched scores' Qᵀ") : -1;
    sSt = applies ? l.spadRegion((long) l.p.maxM() * stStride, "the batched scores' Sᵀ chunk") : -1;
    sScores = applies ? l.spadRegion((long) kvSlots * l.m.maxContext() * kvQueries * line,
        "the batched scores") : -1;
  }

  /** Scratchpad bytes of the batched scores' query codes, {@code Sᵀ} chunk and scores for {@code queries} queries. */
  private long scoresBytes(int queries) {
    int line = l.line;
    return (long) kvSlots * l.c.headDim() * queries * line
        + (long) l.p.maxM() * LoweredModel.roundUp(4L * queries, line)
        + (long) kvSlots * l.m.maxContext() * queries * line;
  }

  /** The most KV heads a head group of {@code headGroup} consecutive heads spans. */
  static int kvHeadsPerGroup(org.llmnpu.sw.model.ModelConfig c, int headGroup) {
    int most = 1;
    for (int h0 = 0; h0 < c.heads(); h0 += headGroup) {
      int last = Math.min(h0 + headGroup, c.heads()) - 1;
      most = Math.max(most, last / c.groupSize() - h0 / c.groupSize() + 1);
    }
    return most;
  }

  /**
   * Whether a model's scores can be one GEMM per KV head over {@code queries} queries ({@link #emit}) on
   * this NPU, regions aside: one K chunk, N within maxN and the copies within a command's rows.
   */
  static boolean fits(org.llmnpu.sw.model.ModelConfig c, org.llmnpu.isa.MachineParams p, KSplit scoreSplit,
                      int queries) {
    int half = c.headDim() / 2;
    return scoreSplit.count() == 1 && queries <= p.maxN()
        && (long) half * queries <= org.llmnpu.isa.MachineParams.MAX_DMA_ROWS
        && (long) p.maxM() * queries <= org.llmnpu.isa.MachineParams.MAX_DMA_ROWS;
  }

  /** Each KV head's {@code Qᵀ} zeroed (a block's first layer): the rows of its window not its head's stay zero. */
  void zeroQt() {
    for (int g = 0; g < l.c.kvHeads(); g++) {
      e.b.load(l.m.zeros, 0, sQt + g * qtBytes, qtStride, qtStride, qtBytes / qtStride);
    }
  }

  /**
   * The probabilities of tokens {@code ts .. ts + nb − 1} of the batch from {@code t0} (nb ≥ 2) with the scores
   * batched, head group by head group: every query of the group's heads scattered one FP16 code a line
   * ({@code dspout} rows of one element at column {@code j = (t − ts)·groupSize + h mod groupSize}), gathered back
   * a head row at a time into the rows of the KV head's {@code Qᵀ} (one {@code dspin} of the evens' and one of the
   * odds' one-element rows, two {@code dspout} INT8 of N codes a row); per KV head {@code Sᵀ = K_cache · Qᵀ} in M
   * chunks of up to maxM slots, as many as {@code rSc2} holds (the same X rows and K window as a query's GEMV, N =
   * the batch's queries), each chunk into the DSP ({@code dspin} INT32 with the scores' shift) and scattered one FP16
   * score a line; then per token each query's scores gathered ({@code dspin} of s one-element rows, its column) and
   * the same runs as {@code BatchedAttention#probabilities}. Every address is line-aligned; the scores equal the
   * GEMV's (the same dot products and the same INT32 → FP16 conversion, copied as raw FP16 bits).
   */
  void emit(int ts, int nb, int t0, int pos) {
    var b = e.b;
    var c = l.c;
    int line = l.line;
    int half = l.half;
    int hd = c.headDim();
    int queries = a.groupSize * nb;
    long queryStride = (long) queries * line;
    boolean aligned = half % l.lanes == 0;
    int sRows = l.r.rows(l.m.maxContext());
    int sigmaS = LoweredModel.shift(c.kvDim());
    int sMax = pos + ts + nb;
    // the scores phase's DSP rows: the gathered Qᵀ in rP, an Sᵀ chunk of up to maxM slots in rSc2
    int rQt = l.rP;
    int oddsAt = rQt + l.r.rows(half * queries);
    int rSt = l.rSc2;
    int chunk = (int) Math.min(l.p.maxM(), (long) l.scoreRows * l.lanes / queries);
    for (int first = 0; first < c.heads(); first += a.headGroup) {
      int h0 = first;
      int group = Math.min(a.headGroup, c.heads() - h0);
      int g0 = h0 / a.groupSize;
      int g1 = (h0 + group - 1) / a.groupSize;
      for (int t = ts; t < ts + nb; t++) {
        int qq = a.queriesIn(t);
        for (int h = h0; h < h0 + group; h++) {
          int evens = aligned ? qq + h * half / l.lanes : l.rQS + h;
          int odds = aligned ? qq + (l.nq + h * half) / l.lanes : l.rQS + c.heads() + h;
          long codes = sQueryCodes + ((long) (h / a.groupSize - g0) * hd * queries + column(h, t, ts)) * line;
          b.dspOut(codes, queryStride, 1, half, evens, Command.FMT_FP16);
          b.dspOut(codes + half * queryStride, queryStride, 1, half, odds, Command.FMT_FP16);
        }
      }
      for (int g = g0; g <= g1; g++) {
        long codes = sQueryCodes + (long) (g - g0) * hd * queryStride;
        long qt = sQt + g * qtBytes;
        b.dspIn(codes, line, 1, (long) half * queries, rQt, Command.FMT_FP16, 0);
        b.dspIn(codes + half * queryStride, line, 1, (long) half * queries, oddsAt, Command.FMT_FP16, 0);
        b.dspOut(qt + (long) a.scoreWindowOffset(g) * qtStride, qtStride, queries, half, rQt, Command.FMT_INT8);
        b.dspOut(qt + (long) a.oddsRow(g) * qtStride, qtStride, queries, half, oddsAt, Command.FMT_INT8);
        int k = a.headMajorKeys ? BatchedAttentionLayout.scoreWindowK(c, line, g) : c.kvDim();
        long x = l.sKC + (a.headMajorKeys ? BatchedAttentionLayout.scoreWindowStart(c, line, g) : 0);
        long scores = sScores + (long) (g - g0) * l.m.maxContext() * queryStride;
        for (int m0 = 0; m0 < sMax; m0 += chunk) {
          int mm = Math.min(chunk, sMax - m0);
          b.gemm(mm, k, queries, x + (long) m0 * l.m.kvBytes, l.m.kvBytes, qt, qtStride, sSt, stStride);
          b.dspIn(sSt, stStride, queries, mm, rSt, Command.FMT_INT32, sigmaS);
          b.dspOut(scores + m0 * queryStride, line, 1, (long) mm * queries, rSt, Command.FMT_FP16);
        }
      }
      a.weave.slot();
      for (int t = ts; t < ts + nb; t++) {
        int s = pos + t + 1;
        int tt = t;
        a.headGroupProbabilities(t, t0, s, h0, heads -> BatchedAttentionLayout.headByHead(heads, i -> {
          int h = h0 + i;
          long scores = sScores
              + ((long) (h / a.groupSize - g0) * l.m.maxContext() * queries + column(h, tt, ts)) * line;
          b.dspIn(scores, queryStride, 1, s, l.rSc + i * sRows, Command.FMT_FP16, 0);
        }));
      }
    }
  }

  /** Column of query (h, t) in its KV head's {@code Qᵀ} and {@code Sᵀ} for the scores batch from token ts. */
  private int column(int h, int t, int ts) {
    return (t - ts) * a.groupSize + h % a.groupSize;
  }

}
