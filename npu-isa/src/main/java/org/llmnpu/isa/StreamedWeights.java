package org.llmnpu.isa;

/**
 * The W operand of a {@link Command.Gemm} with {@code wStream=1}, read from the external memory: K rows, row k at
 * {@code w + k·wStride}. INT8 ({@code wInt4=0}): N signed bytes a row. INT4 ({@code wInt4=1}): {@code ceil(N/2)}
 * bytes a row, entry n in byte {@code n/2}, low nibble first, each nibble a signed INT4 (as {@code load4}).
 * The NPU streams a row as {@link #beatColumns} beats of one line each; the golden GEMM takes the K×N INT8 matrix.
 */
public final class StreamedWeights {
  private StreamedWeights() {
  }

  /** Bytes of one streamed W row: N, or {@code ceil(N/2)} with INT4 entries. */
  public static long rowBytes(Command.Gemm g) {
    return g.int4Weights() ? (g.n() + 1) / 2 : g.n();
  }

  /** Line beats of one streamed W row: {@code ceil(rowBytes / line)}. */
  public static long beatColumns(Command.Gemm g, int lineBytes) {
    return (rowBytes(g) + lineBytes - 1) / lineBytes;
  }

  /** The K×N signed INT8 weights the GEMM multiplies by. */
  static byte[][] read(byte[] mem, Command.Gemm g) {
    int k = (int) g.k();
    int n = (int) g.n();
    byte[][] w = new byte[k][n];
    for (int i = 0; i < k; i++) {
      int row = (int) (g.w() + i * g.wStride());
      if (!g.int4Weights()) {
        System.arraycopy(mem, row, w[i], 0, n);
        continue;
      }
      for (int j = 0; j < n; j++) {
        byte b = mem[row + j / 2];
        w[i][j] = (byte) (j % 2 == 0 ? (b << 28) >> 28 : b >> 4);
      }
    }
    return w;
  }
}
