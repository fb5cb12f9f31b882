package org.llmnpu.sw.dllm;

/**
 * How block-wise masked diffusion decodes (llada.cpp's schedule and its mechanisms).
 *
 * @param blockSize         generated tokens per block
 * @param stepsPerBlock     most denoising steps a block takes: each step commits at least
 *                          {@code ceil(masked / stepsLeft)} tokens of the current block
 * @param threshold         confidence (softmax probability of the argmax) at or above which a masked token commits
 *                          in a step regardless of the quota, in (0, 1]
 * @param speculativeBlocks later blocks whose masked tokens fill the pass's spare rows up to the NPU's row tile
 *                          (multi-block speculative decoding); 0 = off
 * @param tileRows          the NPU's row tile (its {@code mTile}): a pass of {@code r} rows costs as much as
 *                          {@code ceil(r / tileRows)·tileRows}
 * @param cacheCommitted    committed tokens' keys and values are kept (computed once, in the pass after the commit,
 *                          with their token) instead of recomputing the whole block every step; the late-step
 *                          workload then shrinks with the masked tokens
 * @param revision          where stale committed tokens are refreshed: {@link Revision#OFF}, in the NPU's pass, or on
 *                          the CPU beside it (dual-path progressive revision)
 * @param reviseRows        committed tokens refreshed a step (the stalest, lowest-confidence first)
 * @param maskToken         the token id of the mask (never predicted)
 */
public record DllmSettings(int blockSize, int stepsPerBlock, double threshold, int speculativeBlocks, int tileRows,
                           boolean cacheCommitted, Revision revision, int reviseRows, int maskToken) {
  /** Where committed tokens are refreshed. */
  public enum Revision { OFF, NPU, CPU }

  public DllmSettings {
    if (blockSize < 1 || blockSize > 256) {
      throw new IllegalArgumentException("--block-size: must be in 1..256, got " + blockSize);
    }
    if (stepsPerBlock < 1 || stepsPerBlock > blockSize) {
      throw new IllegalArgumentException("--steps: must be in 1..block size (" + blockSize + "), got " + stepsPerBlock);
    }
    if (!(threshold > 0 && threshold <= 1)) {
      throw new IllegalArgumentException("--threshold: must be in (0, 1], got " + threshold);
    }
    if (speculativeBlocks < 0 || speculativeBlocks > 4) {
      throw new IllegalArgumentException("--speculative-blocks: must be in 0..4, got " + speculativeBlocks);
    }
    if (tileRows < 1) {
      throw new IllegalArgumentException("tileRows: must be >= 1, got " + tileRows);
    }
    if (reviseRows < 0 || reviseRows > blockSize) {
      throw new IllegalArgumentException("--revise-rows: must be in 0..block size (" + blockSize + "), got "
          + reviseRows);
    }
    if (revision == null) {
      throw new IllegalArgumentException("--revision: must be one of off, npu, cpu");
    }
  }

  /** llada.cpp's configuration: all three decoding mechanisms on (block 32, 8 steps, threshold 0.9). */
  public static DllmSettings llada(int tileRows) {
    return new DllmSettings(32, 8, 0.9, 1, tileRows, true, Revision.CPU, 4, 0);
  }

  public DllmSettings withSpeculativeBlocks(int blocks) {
    return new DllmSettings(blockSize, stepsPerBlock, threshold, blocks, tileRows, cacheCommitted, revision,
        reviseRows, maskToken);
  }

  public DllmSettings withRevision(Revision r) {
    return new DllmSettings(blockSize, stepsPerBlock, threshold, speculativeBlocks, tileRows, cacheCommitted, r,
        reviseRows, maskToken);
  }

  public DllmSettings withCacheCommitted(boolean on) {
    return new DllmSettings(blockSize, stepsPerBlock, threshold, speculativeBlocks, tileRows, on, revision,
        reviseRows, maskToken);
  }

  public DllmSettings withBlock(int size, int steps) {
    return new DllmSettings(size, steps, threshold, speculativeBlocks, tileRows, cacheCommitted, revision,
        Math.min(reviseRows, size), maskToken);
  }
}
