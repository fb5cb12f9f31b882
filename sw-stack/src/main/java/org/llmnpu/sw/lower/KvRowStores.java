package org.llmnpu.sw.lower;

/**
 * The DMA stores of a block's K or V cache rows: only the bytes the program wrote. A cache row is {@code kvBytes} =
 * the kvDim INT8 codes padded to the line, then a line whose first two bytes are the FP16 scale
 * ({@link LoweredModel}); the padding after the codes and after the scale is scratchpad no command writes, which holds
 * an earlier program's bytes on the hardware (zeros in the golden), so storing it would put undefined bytes into the
 * cache. Where the codes fill whole lines ({@code kvDim} a multiple of the line) one store of {@code kvDim + 2}
 * bytes a row takes codes and scale (as many beats as the whole row); otherwise two: the codes, then the scales
 * (stories260K's kvDim 32 on a 64-byte line).
 */
final class KvRowStores {
  private KvRowStores() {
  }

  /** The stores as {offset in the row, bytes a row}, in the order they are issued. */
  static int[][] runs(int kvDim, int line) {
    int kvPad = LoweredModel.roundUp(kvDim, line);
    return kvPad == kvDim ? new int[][] {{0, kvDim + 2}} : new int[][] {{0, kvDim}, {kvPad, 2}};
  }
}
