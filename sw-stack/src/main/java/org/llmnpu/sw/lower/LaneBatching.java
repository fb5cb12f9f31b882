package org.llmnpu.sw.lower;

/**
 * Whether a second token block's lane ({@link BlockLane}) batches its attention as the first one does. The second
 * lane's buffers go after all of the first's, so its batched attention ({@link BatchedAttention}) sees fewer free DSP
 * rows and scratchpad bytes: where they take fewer tokens a batch (or a scores GEMM), the second block's attention
 * runs as more, smaller GEMMs over the causal slots (more MACs, more commands) and two blocks in flight cost more than
 * one at a time (stories260K at blockMax 16 on a 1024-row DSP: batches of 4 tokens instead of 16, +4.7 % cycles on a
 * 32-token prefill), so the lowering keeps one block at a time there. With equal batching both lanes issue the same
 * GEMMs as the sequential program, so its MACs are the sequential program's. A second lane whose head groups would
 * each compute their token's V-scale bound again ({@link ValueScaleBound}; its rows too few to keep it) goes neither.
 */
final class LaneBatching {
  private LaneBatching() {
  }

  /**
   * Why a second lane of batching {@code second} ({tokens a batch, tokens a scores GEMM, 1 where a token's V-scale
   * bound is kept for its head groups}, {@link BlockLane}) does not go beside a first of {@code first}, or "" when it
   * batches as the first does.
   */
  static String whyNot(int[] first, int[] second) {
    boolean bounds = second.length < 3 || first.length < 3 || second[2] >= first[2];
    if (second[0] >= first[0] && second[1] >= first[1] && bounds) {
      return "";
    }
    return "a second block's attention would batch " + second[0] + " tokens (scores " + second[1]
        + " a GEMM" + (bounds ? "" : ", each head group computing its token's V-scale bound again")
        + ") where the first batches " + first[0] + " (" + first[1]
        + "): the DSP rows and scratchpad bytes left after the first block's buffers are too few";
  }
}
