package org.llmnpu.sw.lower;

import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The attention scores of a block at {@code --fusion full} against the K cache held transposed (issue 32): the layer's
 * {@code Kᵀ} ({@link LoweredModel#kTCache}) is the W of {@code S = Q·Kᵀ} ({@link KeyScores}), the queries its X, so
 * a query's scores are a row of Y that one {@code dspin} takes into the DSP, instead of {@link BatchedScores}' {@code
 * Sᵀ = K·Qᵀ} with its one-element scatters and gathers of every query code and score.
 *
 * <p><b>Keeping {@code Kᵀ}.</b> Kᵀ takes whole lines of slots ({@link KeyColumns}). Per layer: Kᵀ's lines before the
 * block's line come in ({@code load}, kvDim rows); when a line of slots' last token has its K row in the scratchpad
 * ({@link #scatter}), the line's slots go to the staging two at a time from their K rows (the K row's order: flat, or
 * head-major after {@link KeyRows}; the {@code pos mod line} earlier tokens of the block's first
 * line included) and the line is written (the staging holds one line), and the lines stored. On an NPU whose DSP has
 * {@code dspPermute} (and the score rows hold a line×line matrix twice) the line's K rows are transposed instead, a
 * chunk of dimensions at a time ({@link KeyBlocks}), with no staging region. A lone token (a decode
 * step, scored by its GEMVs over the K rows) does this only when it completes a line of slots, so that every complete
 * line in memory is current for the next block.
 *
 * <p><b>Numerics.</b> The scores are the same INT32 dot products as the GEMVs' and take the same INT32 → FP16
 * {@code dspin} with the scores' shift: the logits equal the batched scores' and the GEMVs' bit for bit where the
 * scores GEMV is one K chunk (kvDim ≤ maxK, or head-major windows). Where kvDim > maxK the GEMVs sum FP16 partials of
 * K chunks in FP32, while {@code Q·Kᵀ} (K = half a head) is exact in INT32, so the logits may differ there.
 *
 * <p><b>Cycles.</b> Per token the queries' two {@code dspout}s; per pair of slots of a line its two K rows in, the
 * pack run and the staging (kvDim one-element rows); per line of slots the gather ({@code kvDim} one-element rows a
 * pair) and kvDim row writes; per block the Kᵀ load and store; per head and N tile of slots two GEMMs per M tile;
 * per query one {@code dspin} of its scores.
 */
final class TransposedKeys {
  private final BatchedAttention a;
  private final LoweringEmitter e;
  private final LoweringLayout l;
  /** Tokens whose queries share a scores GEMM (as many as X and Y hold, at least two). */
  final int scoreTokens;
  private final int sKT;
  private final int kTStride;
  /** The pairs' staging ({@link KeyColumns}), or null where Kᵀ goes by blocks. */
  private final KeyColumns columns;
  /** Kᵀ by lanes×lanes blocks on a DSP with permute ({@link KeyBlocks}), or null. */
  private final KeyBlocks blocks;
  private final KeyScores scores;

  private TransposedKeys(BatchedAttention a, int scoreTokens) {
    this.a = a;
    this.e = a.e;
    this.l = a.e.l;
    this.scoreTokens = scoreTokens;
    var c = l.c;
    var p = l.p;
    kTStride = l.m.kTStride;
    sKT = l.spadRegion((long) c.kvDim() * kTStride, "the K cache transposed");
    if (byBlocks(l)) {
      blocks = new KeyBlocks(p, c.kvDim(), 3 * l.scoreRows);
      columns = null;
    } else {
      int stageTokens = stageTokens(l);
      int stage = l.spadRegion(KeyColumns.stageBytes(p, c.kvDim(), stageTokens), "the K columns' staging lines");
      columns = new KeyColumns(p, c.kvDim(), stage, stageTokens, 3 * l.scoreRows * l.lanes);
      blocks = null;
    }
    int sX = l.spadRegion(KeyScores.xBytes(p, c.heads(), c.headDim(), scoreTokens), "the scores' queries");
    int sY = l.spadRegion(l.headGroup * KeyScores.yBytes(p, scoreTokens, l.m.maxContext()), "the scores");
    scores = new KeyScores(p, c.heads(), c.kvHeads(), c.headDim(), a.headMajorKeys, sX, sY, scoreTokens,
        l.m.maxContext());
  }

  /**
   * The scores against {@code Kᵀ} for this layout, or null where they do not apply: K = half a head above maxK, more
   * K rows than a command moves, N tiles not whole lines, or the scratchpad's free
   * bytes holding the regions for fewer than two tokens.
   */
  static TransposedKeys of(BatchedAttention a) {
    LoweringLayout l = a.e.l;
    if (!fits(l.c, l.p) || !byBlocks(l) && !pairRows(l.p, l.r.rows(l.c.kvDim()), l.scoreRows)) {
      return null;
    }
    long fixed = fixedBytes(l);
    // the P·V results and RoPE rows that BatchedAttention and AttentionLowering place after these regions
    long free = l.p.spadBytes() - l.spadBytesUsed() - fixed - 8L * l.line
        - (long) l.blockMax * l.ropeRowBytes;
    int tokens = a.batchTokens;
    while (tokens >= 2 && KeyScores.xBytes(l.p, l.c.heads(), l.c.headDim(), tokens)
        + l.headGroup * KeyScores.yBytes(l.p, tokens, l.m.maxContext()) > free) {
      tokens--;
    }
    return tokens >= 2 ? new TransposedKeys(a, tokens) : null;
  }

  /** Whether a model's scores can take {@code Kᵀ} as W on this NPU, regions aside. */
  static boolean fits(ModelConfig c, MachineParams p) {
    int half = c.headDim() / 2;
    return half <= p.maxK() && c.kvDim() <= MachineParams.MAX_DMA_ROWS && p.maxN() % p.lineBytes() == 0;
  }

  /**
   * Whether the score rows ({@code rSc}, {@code rSc2}, {@code rP}: {@code 3·scoreRows}) hold a pair's two K rows
   * ({@link KeyColumns#pairs}) and a line's codes with the unpacking run's scale row.
   */
  static boolean pairRows(MachineParams p, int kvRows, int scoreRows) {
    return 2 * kvRows <= 3 * scoreRows
        && (3L * scoreRows - 1) * p.dsp().lanes() >= 2L * KeyColumns.pairs(p.lineBytes());
  }

  /** Whether Kᵀ's lines go by blocks ({@link KeyBlocks}: a DSP with permute, the score rows holding a chunk). */
  private static boolean byBlocks(LoweringLayout l) {
    return KeyBlocks.columns(l.p, l.c.kvDim(), 3 * l.scoreRows) > 0;
  }

  /**
   * Pairs of slots one pack run takes: as many as the score rows ({@code 3·scoreRows}) hold two K rows of, where kvDim
   * is a multiple of the lanes (the K rows then lie whole rows apart in the DSP), else one.
   */
  static int pairChunk(int kvDim, int lanes, int kvRows, int scoreRows) {
    return kvDim % lanes == 0 ? Math.max(1, 3 * scoreRows / (2 * kvRows)) : 1;
  }

  /** The most tokens a {@code Kᵀ} write stages: a line of slots. */
  private static int stageTokens(LoweringLayout l) {
    return l.line;
  }

  /** Whether block {@code (n, pos)} writes {@code Kᵀ}: two tokens or more, or a lone token completing a line. */
  boolean writes(int n, int pos) {
    return n >= 2 || (pos + n) % l.line == 0;
  }

  /** Before the block's tokens: Kᵀ's complete lines before the block's first line into the scratchpad (n ≥ 2). */
  void loadLines(int layer, int n, int pos) {
    int first = pos - pos % l.line;
    if (n >= 2 && first > 0) {
      e.b.load(layerBase(layer), kTStride, sKT, kTStride, first, l.c.kvDim());
    }
  }

  /**
   * After block token t's K row is in the scratchpad: if it is the last slot of a line of slots the block leaves
   * written, that line's slots (from the line's first, earlier tokens included) staged in pairs from their K rows
   * ({@link KeyColumns#pairs}, {@link #pairChunk} pairs a run, through DSP rows from {@code rSc}: free until the
   * scores) and the line written
   * ({@link KeyColumns#write}).
   */
  void scatter(int t, int n, int pos) {
    if (!writes(n, pos)) {
      return;
    }
    int slot = pos + t;
    int first = slot - slot % l.line;
    int count = lineTokens(first, n, pos);
    if (slot != first + count - 1) {
      return;
    }
    long kRow0 = l.sKC + (long) first * l.m.kvBytes;
    if (blocks != null) {
      blocks.write(e.b, l.r, kRow0, l.m.kvBytes, count, l.rSc, sKT, kTStride, first);
      return;
    }
    int kvRows = l.r.rows(l.c.kvDim());
    int chunk = pairChunk(l.c.kvDim(), l.lanes, kvRows, l.scoreRows);
    for (int j0 = 0; j0 < count / 2; j0 += chunk) {
      int k = Math.min(chunk, count / 2 - j0);
      columns.pairs(e.b, l.r, kRow0 + 2L * j0 * l.m.kvBytes, l.m.kvBytes, j0, k, count, l.rSc, l.rSc + k * kvRows);
    }
    if (count % 2 == 1) {
      columns.pairs(e.b, l.r, kRow0 + (count - 1L) * l.m.kvBytes, l.m.kvBytes, count / 2, 1, count, l.rSc, -1);
    }
    columns.write(e.b, l.r, count, l.rSc, sKT, kTStride, first);
  }

  /**
   * After the block's tokens: rows {@code [r0, r0 + rows)} of the Kᵀ lines the block wrote stored (all kvDim rows, or
   * a piece, {@link BlockKvStores}).
   */
  void storeLines(int layer, int n, int pos, int r0, int rows) {
    if (!writes(n, pos)) {
      return;
    }
    long bytes = lineBytes(n, pos);  // the slots the lines hold so far: the rest of a line's bytes no command wrote
    long at = (long) r0 * kTStride + pos - pos % l.line;
    e.b.store(layerBase(layer) + at, kTStride, sKT + at, kTStride, bytes, rows);
  }

  /** The bytes a row of {@link #storeLines} stores for block {@code (n, pos)}. */
  long lineBytes(int n, int pos) {
    return pos + n - (pos - pos % l.line);
  }

  /** Slots of the line from slot {@code first} that block {@code (n, pos)} leaves written: up to its last slot. */
  private int lineTokens(int first, int n, int pos) {
    return Math.min(first + l.line, pos + n) - first;
  }

  private long layerBase(int layer) {
    return l.m.kTCache + (long) layer * l.c.kvDim() * kTStride;
  }

  /**
   * The probabilities of tokens {@code ts .. ts + nb − 1} of the batch from {@code t0} (2 ≤ nb ≤ {@link
   * #scoreTokens}): each token's query halves to X, then per head group each head's {@code Q·Kᵀ} over the sub-batch's
   * slots into a Y slot of its own, then per token the group's scores in (one {@code dspin} of its causal slots, a Y
   * slot a row, DSP row stride {@code sRows}: {@link KeyScores#groupScoresIn}) and the
   * same runs as the GEMVs' ({@link BatchedAttention#headGroupProbabilities}).
   */
  void emit(int ts, int nb, int t0, int pos) {
    var c = l.c;
    for (int t = ts; t < ts + nb; t++) {
      // the query halves flat from their DSP rows: every head's evens in one dspout, its odds in another
      int qq = a.queryRows(t);
      scores.queriesOut(e.b, t - ts, qq, qq + l.r.rows(l.nq), false);
    }
    int sMax = pos + ts + nb;
    int sRows = l.r.rows(l.m.maxContext());
    int sigmaS = LoweredModel.shift(c.kvDim());
    for (int h0 = 0; h0 < c.heads(); h0 += a.headGroup) {
      int group = Math.min(a.headGroup, c.heads() - h0);
      for (int i = 0; i < group; i++) {
        scores.scores(e.b, h0 + i, nb, sMax, sKT, kTStride, i);
      }
      a.weave.slot();
      for (int t = ts; t < ts + nb; t++) {
        int s = pos + t + 1;
        int tt = t - ts;
        a.headGroupProbabilities(t, t0, s, h0,
            heads -> scores.groupScoresIn(e.b, tt, s, l.rSc, sigmaS, heads, sRows));
      }
    }
  }

  /** Scratchpad bytes Kᵀ's regions take besides the scores' X and Y (for {@link BatchedAttention}'s free count). */
  static long fixedBytes(LoweringLayout l) {
    return (long) l.c.kvDim() * l.m.kTStride
        + (byBlocks(l) ? 0 : KeyColumns.stageBytes(l.p, l.c.kvDim(), stageTokens(l)));
  }
}
