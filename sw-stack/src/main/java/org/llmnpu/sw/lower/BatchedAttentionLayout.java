package org.llmnpu.sw.lower;

import java.util.List;
import java.util.function.IntConsumer;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.model.ModelConfig;

/**
 * Where {@code --fusion full}'s batched attention keeps its operands, read alike by the lowering
 * ({@link BatchedAttention}, {@link BatchedScores}) and by the cost model's walk ({@link AttentionWalk},
 * {@link PhaseWalk}), so that the two cannot disagree on a row or a window.
 *
 * <p><b>Queries.</b> The probabilities P and the P·V results O hold a row per query of a block: KV head g's queries
 * of the block together ({@code groupSize} heads × {@code blockMax} tokens), token-major ({@link #queryRow}); a
 * token's P rows of a head group are written in runs of evenly spaced rows ({@link #probabilityRowRuns}).
 *
 * <p><b>Head-major keys.</b> Where {@link #headMajorKeys} holds, the K cache holds each KV head's codes contiguous
 * (its evens, then its odds), so a query's scores GEMV covers only the line-aligned window holding its KV head: from
 * {@link #scoreWindowStart} over {@link #scoreWindowK} rows instead of all kvDim.
 */
final class BatchedAttentionLayout {
  private BatchedAttentionLayout() {
  }

  /**
   * Whether {@code --fusion full} lays the K cache out head-major on this model and NPU: the keys' halves fill whole
   * DSP rows, and either a half is whole lines ({@link #directKeys}, the window a head, within maxK) or a half fits a
   * line as FP16 and the scores over kvDim are one K chunk (the staging of {@link KeyRows}).
   */
  static boolean headMajorKeys(ModelConfig c, MachineParams p, KSplit scoreSplit) {
    int half = c.headDim() / 2;
    return c.kvHeads() * half % p.dsp().lanes() == 0
        && (directKeys(c, p) || scoreSplit.count() == 1 && 2 * half <= p.lineBytes());
  }

  /**
   * Whether head-major K rows go out of the DSP directly ({@link KeyRows}): a half is whole lines (so each head's
   * window is the head, line-aligned) and a head's scores are one K chunk.
   */
  static boolean directKeys(ModelConfig c, MachineParams p) {
    int half = c.headDim() / 2;
    return half % p.lineBytes() == 0 && c.headDim() <= p.maxK();
  }

  /** With head-major keys: the largest {@link #scoreWindowK} of the model's KV heads. */
  static int maxWindowK(ModelConfig c, int line) {
    int k = 0;
    for (int g = 0; g < c.kvHeads(); g++) {
      k = Math.max(k, scoreWindowK(c, line, g));
    }
    return k;
  }

  /** With head-major keys: the first byte of KV head g's line window in a K row (its codes start in that line). */
  static int scoreWindowStart(ModelConfig c, int line, int g) {
    return g * c.headDim() / line * line;
  }

  /** With head-major keys: the scores GEMV's K for a query of KV head g (its window up to the head's last code). */
  static int scoreWindowK(ModelConfig c, int line, int g) {
    return (g + 1) * c.headDim() - scoreWindowStart(c, line, g);
  }

  /** Row of query (h, t) in P and O for blocks of up to {@code blockMax} tokens. */
  static int queryRow(ModelConfig c, int blockMax, int h, int t) {
    return (h / c.groupSize() * blockMax + t) * c.groupSize() + h % c.groupSize();
  }

  /**
   * Token t's P rows of heads {@code h0 .. h0 + group − 1} as runs that one {@code dspout} each writes: {first head,
   * heads, row step} (P rows evenly apart; a lone head's step 0). One query head per KV head: the whole group.
   */
  static List<long[]> probabilityRowRuns(ModelConfig c, int blockMax, int t, int h0, int group) {
    return EvenRuns.of(h0, group, h -> queryRow(c, blockMax, h, t), 1);
  }

  /** {@code perHead} for heads {@code 0 .. group − 1} of a group, in order. */
  static void headByHead(int group, IntConsumer perHead) {
    for (int i = 0; i < group; i++) {
      perHead.accept(i);
    }
  }
}
