package org.llmnpu.soc;

/**
 * One operator of a decoder step as a runtime calls it, with the work it does.
 *
 * @param name   e.g. {@code wq}, {@code attn_norm}
 * @param kind   what it is
 * @param m      rows (tokens) of its activation
 * @param k      input width (a matrix product's reduction)
 * @param n      output width (a matrix product's output features; other kinds: elements per row)
 * @param ctx    attention: keys each query row sees, summed over the rows; else 0
 * @param calls  how many times a step calls it (layers, or 1)
 */
public record Operator(String name, Kind kind, int m, int k, int n, long ctx, int calls) {
  /** Operator kinds. Light kinds are the element-wise and row-wise ones. */
  public enum Kind {
    MATMUL(false), ATTENTION(false), NORM(true), ROPE(true), ACTIVATION(true), ADD(true), QUANT(true);

    public final boolean light;

    Kind(boolean light) {
      this.light = light;
    }
  }

  /** Operations per call (a multiply-accumulate counts 2). */
  public double ops(int headDim, int heads) {
    return switch (kind) {
      case MATMUL -> 2.0 * m * k * n;
      case ATTENTION -> 4.0 * heads * headDim * (double) ctx;
      case NORM -> 4.0 * m * n;
      case ROPE -> 6.0 * m * n;
      case ACTIVATION -> 6.0 * m * n;
      case ADD -> 1.0 * m * n;
      case QUANT -> 3.0 * m * n;
    };
  }

  /**
   * DRAM bytes per call: a matrix product reads its weights at {@code bitsPerWeight}, its FP32 activations and
   * writes its outputs; attention reads the FP16 K and V of every key once; the light operators read and write
   * their FP32 rows ({@code ADD} reads two).
   */
  public double bytes(double bitsPerWeight, int kvDim) {
    double rows = 4.0 * m * n;
    return switch (kind) {
      case MATMUL -> k * (double) n * bitsPerWeight / 8 + 4.0 * m * k + 4.0 * m * n;
      case ATTENTION -> 2.0 * 2 * kvDim * (double) (ctx / Math.max(1, m) + m) + 2.0 * 4 * m * n;
      case ADD -> 3 * rows;
      case QUANT -> rows + m * (double) n;
      default -> 2 * rows;
    };
  }
}
