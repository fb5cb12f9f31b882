package org.llmnpu.rtl.npu;

/**
 * The NPU's command fetch ({@link NpuFetch}). Allowed values and default: {@link NpuParameter#COMMAND_QUEUE_DEPTH}.
 *
 * @param commandQueueDepth {@code commandQueueDepth}: the command the controller runs and up to
 *                          {@code commandQueueDepth − 1} the fetcher reads ahead while it runs (1 = no prefetch)
 */
public record NpuFetchConfig(int commandQueueDepth) {
  public NpuFetchConfig {
    NpuParameter.COMMAND_QUEUE_DEPTH.check(commandQueueDepth);
  }
}
