package org.llmnpu.sw.lower;

import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The attention of {@link PhaseCostModel}'s extrapolated walk at {@code --fusion full}, as {@link BatchedAttention}
 * emits it: the block's tokens in the lowering's batches ({@link #attentionBatching}), per batch the scores (batched
 * against the queries' {@code Qᵀ} or the K cache held transposed, else per token's GEMVs), the P·V GEMMs over the
 * batch's queries and each token's outputs dequantized and quantized. The per-token pieces are {@link AttentionWalk}'s.
 */
abstract class BatchedAttentionWalk extends AttentionWalk {
  BatchedAttentionWalk(ModelConfig c, MachineParams p, int maxContext, int blockMax, boolean extrapolate,
                       int weightBits, int weightGroup, int sparsity, int mxFormat, Fusion fusion) {
    super(c, p, maxContext, blockMax, extrapolate, weightBits, weightGroup, sparsity, mxFormat, fusion);
  }

  /** The second block's woven QKV pieces ({@link TileWeave}, as {@code BatchedAttention#weave}); null: none. */
  Runnable weave;

  /** Head groups of batched scores in a block of {@code n} tokens, as {@link #batchedAttention} goes. */
  int weaveSlots(int n) {
    if (fusion != Fusion.FULL) {
      return 0;
    }
    int[] batching = attentionBatching();
    boolean any = batchedScores(n) || (keyScores() && n >= 2);
    return TileWeave.slots(n, batching[0], any && batching[1] >= 2 ? batching[1] : 1, c.heads(), fullGroup());
  }

  private void weaveSlot() {
    if (weave != null) {
      weave.run();
    }
  }

  /**
   * As {@code BatchedAttention#scoresBatched} for the tokens {@code ts .. ts + nb − 1} of a block at {@code pos}: per
   * head group the queries scattered a code a line, per KV head {@code Qᵀ} gathered, {@code Sᵀ} in M chunks scattered
   * a score a line, then per token each query's scores gathered, the runs and the P rows.
   */
  void scoresBatched(int ts, int nb, int pos) {
    int gs = c.groupSize();
    int queries = gs * nb;
    int sMax = pos + ts + nb;
    int chunk = (int) Math.min(p.maxM(), (long) scoreRows() * lanes / queries);
    for (int h0 = 0; h0 < c.heads(); h0 += fullGroup()) {
      int group = Math.min(fullGroup(), c.heads() - h0);
      operator("attention scores");
      for (int t = 0; t < nb; t++) {
        queryHalvesIn();
        for (int i = 0; i < group; i++) {
          dspOut(half, 1, FP16);
          dspOut(half, 1, FP16);
        }
      }
      for (int g = h0 / gs; g <= (h0 + group - 1) / gs; g++) {
        dspIn((long) half * queries, 1, FP16);
        dspIn((long) half * queries, 1, FP16);
        dspOut(half, queries, INT8);
        dspOut(half, queries, INT8);
        for (int m0 = 0; m0 < sMax; m0 += chunk) {
          int mm = Math.min(chunk, sMax - m0);
          gemm(mm, scoreK(g), queries, false);
          dspIn(mm, queries, INT32);
          dspOut((long) mm * queries, 1, FP16);
        }
      }
      weaveSlot();
      for (int t = ts; t < ts + nb; t++) {
        int s = pos + t + 1;
        groupProbabilities(group, s, boundAt(h0), heads -> headByHead(heads, i -> dspIn(s, 1, FP16)));
        probabilityRowsOut(t, h0, group, s);
      }
    }
  }

  /**
   * As {@code TransposedKeys#emit} for the tokens {@code ts .. ts + nb − 1} of a block at {@code pos}: each token's
   * query halves to X, then per head group each head's {@code Q·Kᵀ} (evens, then odds accumulating, per N tile of
   * maxN slots and M tile of maxM tokens), then per token the group's scores in, the runs and the P rows.
   */
  void keyScoresBatched(int ts, int nb, int pos) {
    operator("attention scores");
    for (int t = 0; t < nb; t++) {
      // the query halves flat from their DSP rows (TransposedKeys#emit)
      dspOut(c.heads(), half, INT8);
      dspOut(c.heads(), half, INT8);
    }
    int sMax = pos + ts + nb;
    for (int h0 = 0; h0 < c.heads(); h0 += fullGroup()) {
      int group = Math.min(fullGroup(), c.heads() - h0);
      operator("attention scores");
      for (int i = 0; i < group; i++) {
        for (int n0 = 0; n0 < sMax; n0 += p.maxN()) {
          int nn = Math.min(p.maxN(), sMax - n0);
          for (int m0 = 0; m0 < nb; m0 += p.maxM()) {
            int mm = Math.min(p.maxM(), nb - m0);
            gemm(mm, half, nn, false);
            accumulatingGemm(mm, half, nn);
          }
        }
      }
      weaveSlot();
      for (int t = ts; t < ts + nb; t++) {
        int s = pos + t + 1;
        // as KeyScores#groupScoresIn: the group's scores in one dspin (a DSP row stride)
        groupProbabilities(group, s, boundAt(h0), heads -> dspIn(heads, s, INT32));
        probabilityRowsOut(t, h0, group, s);
      }
    }
  }

  /**
   * Whether the head group from {@code h0} computes its token's V-scale bound, as {@code
   * BatchedAttention#headGroupProbabilities}: the first group, or every group where the bounds are not kept.
   */
  private boolean boundAt(int h0) {
    return h0 == 0 || attentionBatching()[2] == 0;
  }

  /** Whether the walk batches the scores as the lowering does where its regions fit ({@code BatchedAttention}). */
  boolean batchedScores(int n) {
    int queries = c.groupSize() * n;
    return !keyScores() && fusion == Fusion.FULL && n >= 2 && BatchedScores.fits(c, p, split(scoreK(0)), queries)
        && 2 * r.rows(half * queries) <= scoreRows() && (long) scoreRows() * lanes >= queries;
  }

  /**
   * As {@link BatchedAttention} ({@code --fusion full}): the block's tokens in batches of {@link #attentionBatching}'s
   * tokens (a probability scale row per query in the DSP's free rows), per batch the scores (a sub-batch's queries in
   * one GEMM per KV head where they batch, else per token the scores GEMVs and DSP runs of {@link #attention}, each
   * query's probabilities to its P row), per KV head one P·V GEMM over the batch's queries, per token the outputs.
   */
  @Override
  void batchedAttention(int n, int pos, boolean firstLayer) {
    boolean batched = batchedScores(n);
    int[] batching = attentionBatching();
    int batchTokens = batching[0];
    if (firstLayer) {
      for (int g = 0; g < c.kvHeads(); g++) {
        load((long) c.groupSize() * n, LoweredModel.roundUp(pos + n, line));
      }
      if (batched) {
        // each KV head's Qᵀ zeroed: its score K rows (its window with head-major keys, else kvDim)
        int rows = 0;
        for (int g = 0; g < c.kvHeads(); g++) {
          rows = Math.max(rows, scoreK(g));
        }
        for (int g = 0; g < c.kvHeads(); g++) {
          // rows as wide as a batch's queries (BatchedScores#qtStride)
          load(rows, LoweredModel.roundUp((long) c.groupSize() * batchTokens, line));
        }
      }
    }
    boolean transposed = keyScores() && n >= 2;
    for (int t0 = 0; t0 < n; t0 += batchTokens) {
      int nb = Math.min(batchTokens, n - t0);
      int step = (batched || transposed) && batching[1] >= 2 ? batching[1] : 1;
      for (int ts = t0; ts < t0 + nb; ts += step) {
        int count = Math.min(step, t0 + nb - ts);
        if (count >= 2 && transposed) {
          keyScoresBatched(ts, count, pos);
        } else if (count >= 2) {
          scoresBatched(ts, count, pos);
        } else {
          tokenProbabilities(ts, pos + ts + 1);
        }
      }
      valueProducts(n, t0, nb, pos);
    }
  }

  /** Block token t's queries over {@code s} slots at {@code --fusion full}: the scores GEMVs and runs, the P rows. */
  private void tokenProbabilities(int t, int s) {
    queryHalvesIn();
    for (int h0 = 0; h0 < c.heads(); h0 += fullGroup()) {
      int group = Math.min(fullGroup(), c.heads() - h0);
      groupProbabilities(h0, group, s, boundAt(h0));
      probabilityRowsOut(t, h0, group, s);
    }
  }

  /**
   * As {@code BatchedAttention#queriesIn}: where a half is not whole DSP rows, the query halves to rows of their own
   * through the scratchpad (a {@code dspout} of every half, two where the halves are padded, {@code qSpan}; a
   * {@code dspin}).
   */
  private void queryHalvesIn() {
    if (half % lanes != 0) {
      int parts = qSpan == nq ? 1 : 2;
      for (int part = 0; part < parts; part++) {
        dspOut(2 * c.heads() / parts, half, FP16);
      }
      dspIn(2 * c.heads(), lanes, FP16);
    }
  }

  /** The P·V GEMMs of the batch of {@code nb} tokens from {@code t0} of a block of {@code n}, then its outputs. */
  private void valueProducts(int n, int t0, int nb, int pos) {
    operator("attention P·V GEMM");
    KSplit pv = split(pos + t0 + nb);
    int gs = c.groupSize();
    for (int g = 0; g < c.kvHeads(); g++) {
      int first = c.headDim() * g;
      int queries = gs * nb;
      for (int ci = 0; ci < pv.count(); ci++) {
        for (int m0 = 0; m0 < queries; m0 += p.maxM()) {
          // KV head g's queries of the batch, rows (g·n + t0)·groupSize + m0 .. of K chunk ci's outputs
          resultTag = outputRow(ci, (long) (g * n + t0) * gs + m0);
          resultRows = Math.min(p.maxM(), queries - m0);
          gemm(Math.min(p.maxM(), queries - m0), pv.length(ci), first % line + c.headDim(), false);
        }
      }
    }
    resultTag = RESULTS;
    resultRows = 1;
    // as BatchedAttention#emit: the batch's outputs slot (TileWeave#slots)
    weaveSlot();
    operator("attention outputs");
    for (int t = t0; t < t0 + nb; t++) {
      // as BatchedAttention#outputs: one-chunk results all in first, so that the groups' runs join
      boolean allIn = !pv.combined();
      if (allIn) {
        // as BatchedAttention#headOutputsIn: heads whose result rows lie evenly apart in one dspin
        long outStride = LoweredModel.roundUp(4L * (c.headDim() + line), line);
        for (long[] run : HeadOutputRuns.runs(c, lanes, line, blockMax, outStride, t, 0, c.heads())) {
          int h = (int) run[0];
          int last = h + (int) run[1] - 1;
          int lead = HeadOutputRuns.lead(c, line, h);
          dspIn(run[1], lead + c.headDim(), INT32, outputRow(0, (h / gs * n + t) * gs + h % gs),
              outputRow(0, (last / gs * n + t) * gs + last % gs) + 1);
          headsDown((int) run[1], lead);
        }
        // as BatchedAttention#outputs: the heads' dequantization and the output's quantization in one run
        int hdRows = r.rows(c.headDim());
        int rows = c.heads() * hdRows;
        if (r.outputCodes(0, c.heads(), hdRows, rows, (short) 0x3C00, rows + c.heads(), 0, 0) != null) {
          run("output codes", () -> r.outputCodes(0, c.heads(), hdRows, rows, (short) 0x3C00, rows + c.heads(), 0, 0));
          dspOut(1, oK, INT8);
          continue;
        }
      }
      for (int h0 = 0; h0 < c.heads(); h0 += fullGroup()) {
        int group = Math.min(fullGroup(), c.heads() - h0);
        for (int i = 0; i < group && !allIn; i++) {
          int h = h0 + i;
          headOutputIn(pv, h, (h / gs * n + t) * gs + h % gs);
        }
        outputScales(group);
      }
      run("attention quantize", () -> r.quantize(0, oK, -1, 0, 0));
      dspOut(1, oK, INT8);
    }
  }

  /**
   * The lowering's attention batching ({@link BatchedAttention#batching}: tokens a batch, tokens a scores GEMM) where
   * it lays the model out, and whether it keeps a token's V-scale bound for all its head groups; else (a model the
   * lowering cannot lay out) the block's tokens in one batch and one scores GEMM, the stated NPU's DSP taken to hold a
   * probability scale row per query and the bounds.
   */
  int[] attentionBatching() {
    if (batching == null) {
      try {
        LoweredModel layout = LoweredModel.layoutOnly(c, p, maxContext, maxContext, bits, group, sparsity, mxFormat);
        batching = new BlockLane(new LoweringLayout(layout, blockMax, true), program -> layout.dspPool, fusion)
            .attentionBatching();
      } catch (IllegalArgumentException cannotLayOut) {
        batching = new int[] {blockMax, blockMax, 1};
      }
    }
    return batching;
  }

  private int[] batching;

  /** The walk's address of row {@code row} of K chunk ci's P·V outputs ({@link CommandCosts#RESULTS}). */
  static long outputRow(int ci, long row) {
    return (RESULTS + ci) << 32 | row;
  }

  /** As {@code BatchedAttention#headOutputIn}: query row {@code row}'s P·V result of each K chunk. */
  void headOutputIn(KSplit pv, int h, int row) {
    int lead = HeadOutputRuns.lead(c, line, h);
    int elems = lead + c.headDim();
    if (!pv.combined()) {
      dspIn(1, elems, INT32, outputRow(0, row));
    } else {
      for (int ci = 0; ci < pv.count(); ci++) {
        dspIn(1, elems, INT32, outputRow(ci, row));
      }
      run(java.util.List.of("sum partials", pv.count(), elems, -1),
          () -> r.sumPartials(0, pv.count(), r.rows(elems), elems, -1, 0));
    }
    headsDown(1, lead);
  }

  /** As {@code DspRoutines#headsDown}: {@code heads} heads read with {@code lead} columns before them moved down. */
  private void headsDown(int heads, int lead) {
    for (int i = 0; i < heads && lead > 0; i++) {
      run(java.util.List.of("shift down", lead), () -> r.shiftDown(0, lead));
    }
  }
}
