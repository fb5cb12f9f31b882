package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * The attention core of a block at {@code --fusion full} (issue 32's inter-operator fusion, batched): after the
 * block's K and V rows are in the scratchpad cache, per KV head <b>one</b> scores GEMM over a sub-batch's queries
 * ({@link #scoresBatched}, where the scratchpad holds its regions; else each query's scores GEMV as in the unbatched
 * path, {@link AttentionLowering}), each query's SoftMax as there, then per KV head <b>one</b> P·V GEMM for all the
 * batch's queries of the query heads that share it (GQA: those heads' probability rows stacked, M = heads of the
 * group × tokens), instead of one GEMV per token and head. Scores, probabilities and outputs stay in the scratchpad
 * and the DSP buffer (no DRAM round trip).
 *
 * <p><b>Layouts.</b> The V cache (slot-major rows) is the P·V GEMM's weight operand as it is (K = slots, N = the KV
 * head's columns), and the probabilities are its X, a row per query (a KV head's queries of the block consecutive,
 * token-major), each row zero beyond the query's causal slots: the GEMM runs over the batch's {@code pos + t0 + nb}
 * slots and the zero tails add nothing (the causal mask is structural). The batched scores' W is the KV head's
 * queries as columns ({@code Qᵀ}); {@code dspout} and {@code dspin} need line-aligned scratchpad addresses, so the
 * codes and the scores are transposed through rows of one element a line ({@link #scoresBatched}). See the README.
 *
 * <p><b>Numerics.</b> Every INT32 P·V result equals the per-token GEMV's (the same integer dot product; zero
 * probabilities add nothing), and the DSP programs compute the same values per query (its codes against its token's
 * own V-scale bound, {@link ValueScaleBound}), so the logits equal {@code --fusion none}'s bit for bit (a P·V over
 * more than maxK slots split at the batch's slot count: a chunk of zero probabilities more, the same FP32 sum).
 */
final class BatchedAttention {
  final LoweringEmitter e;
  private final LoweringLayout l;
  final int groupSize;
  /** Heads whose probabilities run together ({@link HeadGroups#atFull}): one resident program where it fits. */
  final int headGroup;
  /** INT8 probabilities: a row per query of the block ({@link #queryRow}), a byte per slot. */
  private final int sProbs;
  private final int probStride;
  /** P·V results: a row per query, INT32; K chunks {@code outChunkBytes} apart. */
  private final int sOut;
  private final int outStride;
  private final long outChunkBytes;
  /** Tokens whose queries share the GEMMs: as many as the DSP holds scale rows for, or the block (scales in spad). */
  final int batchTokens;
  /** A broadcast row per query of a batch, {@code (t − t0)·heads + h}: its probabilities' dequantization scale. */
  private final int rProbScales;
  /** With those, each batch token's V-scale bound kept for its head groups; else -1 (each in l.rBound again). */
  private final int rTokenBounds;
  /**
   * When the DSP has fewer free rows than heads and two bound rows: each query's scale waits in the scratchpad, a line
   * per query ({@link #queryRow}; a {@code dspout} of one FP16, a {@code dspin} of it with stride 0), -1 otherwise.
   */
  private final int sProbScales;
  /**
   * Where a token's query halves wait on their way to lane 0 of their own rows when a half is not a whole row: a
   * half per {@link #halfStride} bytes, read back as a row of lanes each (a {@code dspout} and a {@code dspin}
   * instead of the {@link DspRoutines#scatter} program). -1 when the halves are lane-aligned.
   */
  private final int sQueryHalves;
  private final int halfStride;
  /**
   * Whether the K cache holds each KV head's codes contiguous (evens then odds of the head, {@link KeyRows}), so
   * that a query's scores GEMV covers only the line-aligned window holding its KV head
   * ({@link BatchedAttentionLayout#scoreWindowStart}) instead of all kvDim rows: on stories260K K = 8 or 16 (one K
   * tile of the array) instead of 32 (two).
   */
  final boolean headMajorKeys;
  /** The K rows written head-major ({@link KeyRows}), null without. */
  final KeyRows keys;
  /** The scores' K split: one chunk (a KV head's window) with head-major keys, else the layout's over kvDim. */
  final KSplit scoreSplit;
  /** The scores as {@code Q·Kᵀ} against the K cache held transposed, where the NPU and the scratchpad allow; else null. */
  final TransposedKeys keyScores;
  /** The other block's pieces woven after each head group's scores GEMMs ({@link AttentionWeave}). */
  final AttentionWeave.Pieces weave = new AttentionWeave.Pieces();
  /** Else one scores GEMM per KV head over a sub-batch's queries where the scratchpad holds them; else null (GEMVs). */
  final BatchedScores scores;

  BatchedAttention(LoweringEmitter emitter) {
    this.e = emitter;
    this.l = emitter.l;
    var c = l.c;
    int line = l.line;
    groupSize = c.groupSize();
    headGroup = HeadGroups.atFull(l.r, l.headGroup, c.heads(), l.m.maxContext(), l.p);
    int freeRows = l.p.dsp().rows() - l.dspRowsUsed();
    boolean inDsp = freeRows >= c.heads() + ValueScaleBound.ROWS;
    batchTokens = inDsp ? Math.min(l.blockMax, freeRows / (c.heads() + ValueScaleBound.ROWS)) : l.blockMax;
    probStride = LoweredModel.roundUp(l.m.maxContext(), line);
    sProbs = l.spadRegion((long) c.heads() * l.blockMax * probStride, "the batched attention's probabilities");
    outStride = LoweredModel.roundUp(4L * (c.headDim() + line), line);
    outChunkBytes = (long) c.heads() * l.blockMax * outStride;
    sOut = l.spadRegion(outChunkBytes * l.pvSplit.count(), "the batched attention's P·V results");
    rProbScales = inDsp ? l.dspRegion(c.heads() * batchTokens, "the batched attention's probability scales") : -1;
    rTokenBounds = inDsp ? l.dspRegion(ValueScaleBound.ROWS * batchTokens, "the batch tokens' V-scale bounds") : -1;
    sProbScales = inDsp ? -1 : l.spadRegion((long) c.heads() * l.blockMax * line,
        "the batched attention's probability scales");
    halfStride = LoweredModel.roundUp(2 * l.lanes, line);
    sQueryHalves = l.half % l.lanes == 0 ? -1
        : l.spadRegion(2L * c.heads() * halfStride, "the batched attention's query halves");
    headMajorKeys = BatchedAttentionLayout.headMajorKeys(c, l.p, l.scoreSplit);
    keys = headMajorKeys ? new KeyRows(e) : null;
    scoreSplit = headMajorKeys ? l.split(BatchedAttentionLayout.maxWindowK(c, line)) : l.scoreSplit;
    keyScores = TransposedKeys.of(this);
    BatchedScores batched = keyScores == null ? new BatchedScores(this) : null;
    scores = batched != null && batched.applies ? batched : null;
  }

  /**
   * Tokens a batch ({@link #batchTokens}), of them tokens a scores GEMM, 1 where a token's V-scale bound is kept (else
   * 0): what a layout's free DSP rows and scratchpad bytes allowed (a lane placed after another has fewer of both).
   */
  int[] batching() {
    return new int[] {batchTokens, keyScores != null ? keyScores.scoreTokens : scores != null ? scores.scoreTokens : 1,
        rTokenBounds >= 0 ? 1 : 0};
  }

  /** Row of the query's first even in its weight column: its KV head's codes in the scores GEMV's K window. */
  int scoreWindowOffset(int g) {
    return headMajorKeys ? g * l.c.headDim() - BatchedAttentionLayout.scoreWindowStart(l.c, l.line, g) : l.half * g;
  }

  /**
   * Attention of block tokens {@code 0..n-1} at positions {@code pos..} over the cache slots {@code [0, pos + n)}
   * (the block's K/V rows already stored); each token's quantized output to sXO row t. The tokens go in batches of
   * {@link #batchTokens}, each batch's queries through one scores and one P·V GEMM per KV head over the slots up to
   * its last token. {@code firstLayer}: the block's first layer, which zeroes the queries' and probabilities' regions
   * (a query's P row always holds the same causal length in a block, so its zero tail stays zero).
   */
  void emit(int n, int pos, boolean firstLayer) {
    var c = l.c;
    if (firstLayer) {
      // each KV head's P rows of the block's n tokens (consecutive rows), up to the block's slots
      for (int g = 0; g < c.kvHeads(); g++) {
        e.b.load(l.m.zeros, 0, sProbs + (long) queryRow(g * groupSize, 0) * probStride, probStride,
            LoweredModel.roundUp(pos + n, l.line), (long) groupSize * n);
      }
      if (scores != null && n >= 2) {
        scores.zeroQt();
      }
    }
    for (int t0 = 0; t0 < n; t0 += batchTokens) {
      int nb = Math.min(batchTokens, n - t0);
      // the scores batched a sub-batch of scoreTokens at a time; a lone token (a decode step) by its GEMVs, which
      // cost less than a GEMM of groupSize columns with its gathers and scatters
      int step = keyScores != null ? keyScores.scoreTokens : scores != null ? scores.scoreTokens : 1;
      for (int ts = t0; ts < t0 + nb; ts += step) {
        int count = Math.min(step, t0 + nb - ts);
        if (count >= 2 && keyScores != null) {
          keyScores.emit(ts, count, t0, pos);
        } else if (count >= 2) {
          scores.emit(ts, count, t0, pos);
        } else {
          probabilities(ts, t0, pos + ts + 1);
        }
      }
      KSplit pv = l.split(pos + t0 + nb);
      int batch = t0;
      weave.batch(() -> {
        for (int g = 0; g < c.kvHeads(); g++) {
          valueProducts(g, batch, nb, pv);
        }
      }, () -> {
        for (int t = batch; t < batch + nb; t++) {
          outputs(t, batch, pv);
        }
      });
    }
  }

  /** Row of query (h, t) in P and O: a KV head's queries of the block together, token-major. */
  private int queryRow(int h, int t) {
    return BatchedAttentionLayout.queryRow(l.c, l.blockMax, h, t);
  }

  /** Row of query (h, t)'s probability scale in the batch from token t0. */
  private int scaleRow(int h, int t, int t0) {
    return rProbScales + (t - t0) * l.c.heads() + h;
  }

  /**
   * Token t's queries over its {@code s} causal slots, as the unbatched path: per head its scores GEMV, then in head
   * groups {@link #headGroupProbabilities}; each query's codes to its P row, its scale to its scale row.
   */
  private void probabilities(int t, int t0, int s) {
    var b = e.b;
    var c = l.c;
    int line = l.line;
    int half = l.half;
    int qq = queriesIn(t);
    boolean aligned = half % l.lanes == 0;
    int sigmaS = LoweredModel.shift(c.kvDim());
    int sRows = l.r.rows(l.m.maxContext());
    for (int first = 0; first < c.heads(); first += headGroup) {
      int h0 = first;
      headGroupProbabilities(t, t0, s, h0, group -> BatchedAttentionLayout.headByHead(group, i -> {
        int h = h0 + i;
        int g = h / groupSize;
        long wq = l.sWQ + (long) h * l.wqBytes;
        int evens = aligned ? qq + h * half / l.lanes : l.rQS + h;
        int odds = aligned ? qq + (l.nq + h * half) / l.lanes : l.rQS + c.heads() + h;
        b.dspOut(wq + (long) scoreWindowOffset(g) * line, line, 1, half, evens, Command.FMT_INT8);
        b.dspOut(wq + (long) oddsRow(g) * line, line, 1, half, odds, Command.FMT_INT8);
        scoresGemv(wq, s, g);
        e.partialsIn(scoreSplit, l.sYS, l.ysChunkBytes, line, 1, s, l.rSc + i * sRows, sigmaS, -1);
      }));
    }
  }

  /**
   * Token t's queries as DSP rows: each head's evens then odds flat from row {@code qq} (returned) when a half fills
   * whole rows; else also, through the scratchpad, each half to lane 0 of a row of its own ({@code l.rQS + h} the
   * evens, {@code l.rQS + heads + h} the odds; raw FP16 bits), a dspout a half if {@link LoweredModel#qSpan} pads.
   */
  int queriesIn(int t) {
    int qq = queryRows(t);
    if (l.half % l.lanes != 0) {
      int parts = l.qSpan == l.nq ? 1 : 2;
      for (int p = 0; p < parts; p++) {
        e.b.dspOut(sQueryHalves + (long) p * l.c.heads() * halfStride, halfStride, l.half, 2L * l.c.heads() / parts,
            qq + p * l.r.rows(l.nq), Command.FMT_FP16);
      }
      e.b.dspIn(sQueryHalves, halfStride, l.lanes, 2L * l.c.heads(), l.rQS, Command.FMT_FP16, 0);
    }
    return qq;
  }

  /** Token t's queries as DSP rows: each head's evens then odds flat from the row returned (its odds rows(nq) on). */
  int queryRows(int t) {
    return l.rQQ + t * 2 * l.r.rows(l.nq);
  }

  /** Row of the query's first odd in its KV head g's scores weight (the per-query column or {@code Qᵀ}). */
  int oddsRow(int g) {
    return headMajorKeys ? scoreWindowOffset(g) + l.half : l.nk + l.half * g;
  }

  /**
   * Token t's queries of heads {@code h0 .. h0 + group − 1} over {@code s} slots: {@code scoresIn} (given the group)
   * puts head {@code h0 + i}'s FP16 scores at {@code l.rSc + i·sRows}, then the token's V-scale bound (the first group,
   * or each where it is not kept: {@link #rTokenBounds}), the scores scaled, SoftMax and coded against it (shared runs);
   * the codes to their P rows ({@link BatchedAttentionLayout#probabilityRowRuns}), each scale to its scale row.
   */
  void headGroupProbabilities(int t, int t0, int s, int h0, java.util.function.IntConsumer scoresIn) {
    var b = e.b;
    var c = l.c;
    var r = l.r;
    int line = l.line;
    int sRows = r.rows(l.m.maxContext());
    int sigmaS = LoweredModel.shift(c.kvDim());
    short scoreScale = LoweringEmitter.half(Math.scalb(1.0, -sigmaS) / Math.sqrt(c.headDim()));
    int group = Math.min(headGroup, c.heads() - h0);
    List<DspQuantizer.Vector> probabilities = new ArrayList<>();
    List<AttentionSoftmax.Head> heads = new ArrayList<>();
    scoresIn.accept(group);
    for (int i = 0; i < group; i++) {
      int h = h0 + i;
      heads.add(new AttentionSoftmax.Head(l.rSc + i * sRows, l.rDQ + t, l.rDKV, scoreScale, l.rSc2 + i * sRows,
          l.rP + i * sRows));
      int scale = sProbScales < 0 ? scaleRow(h, t, t0) : l.rDP + i;
      probabilities.add(new DspQuantizer.Vector(l.rP + i * sRows, s, l.rDVV, l.rPQ + i * sRows, scale));
    }
    int bound = rTokenBounds < 0 ? l.rBound : rTokenBounds + ValueScaleBound.ROWS * (t - t0);
    if (rTokenBounds < 0 || h0 == 0) {
      ValueScaleBound.emit(e, s, bound);
    }
    r.probabilityRuns(heads, probabilities, bound, s).forEach(e::run);
    for (long[] run : BatchedAttentionLayout.probabilityRowRuns(c, l.blockMax, t, h0, group)) {
      int i = (int) run[0] - h0;
      b.dspOut(sProbs + (long) queryRow(h0 + i, t) * probStride, Math.max(1, run[2]) * probStride, s, run[1],
          l.rPQ + i * sRows, Command.FMT_INT8, run[1] > 1 ? sRows : 0);
    }
    for (int i = 0; i < group; i++) {
      if (sProbScales >= 0) {
        b.dspOut(sProbScales + (long) queryRow(h0 + i, t) * line, line, 1, 1, l.rDP + i, Command.FMT_FP16);
      }
    }
  }

  /**
   * One query's scores {@code K_cache[0..s) · q} (q the weight column at {@code wq}): slots in tiles of maxM; with
   * head-major keys over the K window of its KV head {@code g} only (the window's other rows of W are zero).
   */
  private void scoresGemv(long wq, int s, int g) {
    if (headMajorKeys) {
      int k = BatchedAttentionLayout.scoreWindowK(l.c, l.line, g);
      int window = BatchedAttentionLayout.scoreWindowStart(l.c, l.line, g);
      for (int m0 = 0; m0 < s; m0 += l.p.maxM()) {
        int mm = Math.min(l.p.maxM(), s - m0);
        e.b.gemm(mm, k, 1, l.sKC + (long) m0 * l.m.kvBytes + window, l.m.kvBytes, wq, l.line,
            l.sYS + (long) m0 * l.line, l.line);
      }
      return;
    }
    KSplit ks = l.scoreSplit;
    for (int ci = 0; ci < ks.count(); ci++) {
      int k0 = ks.start(ci);
      for (int m0 = 0; m0 < s; m0 += l.p.maxM()) {
        int mm = Math.min(l.p.maxM(), s - m0);
        e.b.gemm(mm, ks.length(ci), 1, l.sKC + (long) m0 * l.m.kvBytes + k0, l.m.kvBytes, wq + (long) k0 * l.line,
            l.line, l.sYS + ci * l.ysChunkBytes + (long) m0 * l.line, l.line);
      }
    }
  }

  /** {@code O = P · V} of KV head g: M = the batch's queries (tiles of maxM), K = its slots, N = the head's columns. */
  private void valueProducts(int g, int t0, int nb, KSplit pv) {
    int first = l.c.headDim() * g;
    int off = first / l.line * l.line;
    int col = first - off;
    int queries = groupSize * nb;
    int row0 = queryRow(g * groupSize, t0);
    for (int ci = 0; ci < pv.count(); ci++) {
      int k0 = pv.start(ci);
      for (int m0 = 0; m0 < queries; m0 += l.p.maxM()) {
        int mm = Math.min(l.p.maxM(), queries - m0);
        e.b.gemm(mm, pv.length(ci), col + l.c.headDim(), sProbs + (long) (row0 + m0) * probStride + k0, probStride,
            l.sVC + off + (long) k0 * l.m.kvBytes, l.m.kvBytes, sOut + ci * outChunkBytes + (long) (row0 + m0) * outStride,
            outStride);
      }
    }
  }

  /** Token t's head outputs dequantized (a head group's in shared runs), quantized together, to sXO row t. */
  private void outputs(int t, int t0, KSplit pv) {
    var c = l.c;
    var r = l.r;
    int sigmaP = LoweredModel.shift(l.m.maxContext());
    // one-chunk results with their scales in the DSP: every head's in first, so that the groups' runs join
    boolean allIn = !pv.combined() && sProbScales < 0;
    if (allIn) {
      headOutputsIn(0, c.heads(), t, sigmaP);
      // every head's dequantization and the output's quantization in one run (HeadOutputCodes) where it applies
      DspProgram codes = r.outputCodes(l.rO, c.heads(), l.hdRows, scaleRow(0, t, t0), ValueScaleBound.OUTPUT_SCALE, l.rOF,
          l.rOQ, l.rDO + t);
      if (codes != null) {
        e.run(codes);
        e.b.dspOut(l.sXO + (long) t * l.xoStride, l.line, l.m.oK, 1, l.rOQ, Command.FMT_INT8);
        return;
      }
    }
    for (int h0 = 0; h0 < c.heads(); h0 += headGroup) {
      int group = Math.min(headGroup, c.heads() - h0);
      List<DspProgram> outputScales = new ArrayList<>();
      if (!allIn && !pv.combined()) {
        headOutputsIn(h0, group, t, sigmaP);
      }
      for (int i = 0; i < group; i++) {
        int h = h0 + i;
        if (pv.combined()) {
          headOutputIn(h, t, pv, sigmaP);
        }
        int scale = scaleRow(h, t, t0);
        if (sProbScales >= 0) {
          scale = l.rDP + i;
          e.b.dspIn(sProbScales + (long) queryRow(h, t) * l.line, 0, 1, l.lanes, scale, Command.FMT_FP16, 0);
        }
        outputScales.add(r.scale(l.rO + h * l.hdRows, l.hdRows * l.lanes, scale, -1, ValueScaleBound.OUTPUT_SCALE,
            -1, l.rOF + h * l.hdRows));
      }
      r.merged(outputScales).forEach(e::run);
    }
    e.run(r.quantize(l.rOF, l.m.oK, -1, l.rOQ, l.rDO + t));
    e.b.dspOut(l.sXO + (long) t * l.xoStride, l.line, l.m.oK, 1, l.rOQ, Command.FMT_INT8);
  }

  /** Query (h, t)'s P·V result to its FP16 output rows. */
  private void headOutputIn(int h, int t, KSplit pv, int sigmaP) {
    int lead = HeadOutputRuns.lead(l.c, l.line, h);
    e.partialsIn(pv, sOut + HeadOutputRuns.offset(l.c, l.line, l.blockMax, outStride, h, t), outChunkBytes,
        outStride, lead + l.c.headDim(), 1, l.rO + h * l.hdRows, sigmaP, -1);
    l.r.headsDown(l.rO + h * l.hdRows, l.hdRows, 1, lead).forEach(e::run);
  }

  /**
   * One-chunk P·V results of token t's heads {@code h0 .. h0 + count − 1}, a dspin per run ({@link HeadOutputRuns}; a
   * head at its rows {@code rO + h·hdRows}, through the DSP row stride where a head is not whole rows).
   */
  private void headOutputsIn(int h0, int count, int t, int sigmaP) {
    for (long[] run : HeadOutputRuns.runs(l.c, l.lanes, l.line, l.blockMax, outStride, t, h0, count)) {
      int h = (int) run[0];
      int lead = HeadOutputRuns.lead(l.c, l.line, h);
      e.b.dspIn(sOut + HeadOutputRuns.offset(l.c, l.line, l.blockMax, outStride, h, t), run[2], lead + l.c.headDim(),
          run[1], l.rO + h * l.hdRows, Command.FMT_INT32, sigmaP, run[3]);
      l.r.headsDown(l.rO + h * l.hdRows, l.hdRows, (int) run[1], lead).forEach(e::run);
    }
  }
}
