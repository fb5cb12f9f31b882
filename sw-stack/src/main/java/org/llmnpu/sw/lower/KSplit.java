package org.llmnpu.sw.lower;

/**
 * How one GEMM's K is cut into chunks, each one {@code gemm} command whose INT32 result is a
 * partial sum: one chunk when K fits the engine ({@code K ≤ maxK}); else chunks of {@code tile}
 * (the largest multiple of the line not above maxK, so every chunk's operands stay line-aligned),
 * the last one ragged; or, for group-quantized weights, one chunk per group of {@code tile} rows
 * ({@code grouped}), each partial then times its group's scale. The partials are combined on the
 * Vector DSP ({@link DspRoutines#sumPartials}).
 *
 * @param k       the GEMM's K
 * @param tile    chunk length (the last chunk may be shorter)
 * @param count   chunks
 * @param grouped chunks are weight-quantization groups (each partial has its own scale)
 */
record KSplit(int k, int tile, int count, boolean grouped) {
  /** K in chunks of {@code tile} when it exceeds {@code maxK}, else one chunk. */
  static KSplit of(int k, int maxK, int tile) {
    return k <= maxK ? new KSplit(k, k, 1, false) : new KSplit(k, tile, (k + tile - 1) / tile, false);
  }

  /** K in weight-quantization groups of {@code group} rows. */
  static KSplit groups(int k, int group) {
    return new KSplit(k, group, (k + group - 1) / group, true);
  }

  int start(int chunk) {
    return chunk * tile;
  }

  int length(int chunk) {
    return Math.min(tile, k - chunk * tile);
  }

  /**
   * The {@code dspin} shift of the partials: that of the whole K ({@link LoweredModel#shift}), or of
   * one group for grouped weights (whose scales carry {@code 2^-σ} of the group).
   */
  int sigma() {
    return LoweredModel.shift(grouped ? tile : k);
  }

  /** Whether the INT32 result needs the DSP's combination (more than one chunk, or group scales). */
  boolean combined() {
    return count > 1 || grouped;
  }
}
