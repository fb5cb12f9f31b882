package org.llmnpu.sw.lower;

import org.llmnpu.isa.MachineParams;

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

  /**
   * A store of {@code rows} rows of {@code rowBytes} bytes cut in pieces for the other block's QKV GEMM (two blocks
   * in flight, {@link PrefillOrder.Weave#GATED}: a block's stores wait for that GEMM's N tiles, and the interleaver puts
   * a piece after each tile nothing else goes beside, {@code StreamSchedule#storeAtStreamEnd}): as {first row, rows}
   * pieces of about half a tile's drain ({@code n} rows of a stream tile's INT32 results) in beats, at least a row.
   */
  static int[][] pieces(int rows, long rowBytes, MachineParams p, int n) {
    int line = p.lineBytes();
    long drain = (long) n * ((4L * LoweringEmitter.streamTile(p, false) + line - 1) / line);
    long beatsPerRow = (rowBytes + line - 1) / line;
    int per = (int) Math.max(1, Math.min(rows, drain / 2 / beatsPerRow));
    int count = (rows + per - 1) / per;
    int[][] out = new int[count][];
    for (int i = 0; i < count; i++) {
      out[i] = new int[] {i * per, Math.min(per, rows - i * per)};
    }
    return out;
  }

  /** The stores as {offset in the row, bytes a row}, in the order they are issued. */
  static int[][] runs(int kvDim, int line) {
    int kvPad = LoweredModel.roundUp(kvDim, line);
    return kvPad == kvDim ? new int[][] {{0, kvDim + 2}} : new int[][] {{0, kvDim}, {kvPad, 2}};
  }
}
