package org.llmnpu.isa;

/**
 * The GEMM engine's X buffer as the last X copy left it: what a {@code gemm xKeep=1} computes with. Every GEMM on the
 * array without {@code xKeep} copies its M rows of K INT8 X into the buffer (the copy this records); a GEMM with
 * {@code xKeep} copies nothing and reads these rows.
 *
 * <p>A {@code gemm xKeep=1} is defined only when the buffer holds a copy of the same {@code M}, {@code K} and
 * {@code sparsity} (the N:M engine lays a K tile of {@code 2·rows} out over two X lines, so the layout depends on the
 * mode): otherwise {@link ErrorCause#BAD_SHAPE} ({@link #fits}). The held bytes are the buffer's, not the scratchpad's:
 * a command that writes the scratchpad bytes X was copied from after the copy does not change what an {@code xKeep}
 * GEMM reads. So the ISA asks no promise of the program and the RTL checks nothing but the shape. Nothing but a GEMM's
 * X copy writes the buffer; after reset it holds no copy.
 */
final class HeldX {
  private byte[][] rows;
  private long m;
  private long k;
  private long sparsity;

  /** Whether a {@code gemm xKeep=1} of {@code g}'s shape finds its X in the buffer (a copy of the same M, K, sparsity). */
  boolean fits(Command.Gemm g) {
    return rows != null && g.m() == m && g.k() == k && g.sparsity() == sparsity;
  }

  /** The X copy of GEMM {@code g}: its {@code x} rows (M rows of K INT8) replace the buffer's content. */
  void copy(byte[][] x, Command.Gemm g) {
    rows = x;
    m = g.m();
    k = g.k();
    sparsity = g.sparsity();
  }

  /** The held X rows (M rows of K INT8); only when {@link #fits} a GEMM. */
  byte[][] rows() {
    return rows;
  }
}
