package org.llmnpu.isa.dsp;

/**
 * Programs that move data through the local buffer with the permutation instructions of a DSP
 * built with {@code permute} ({@link DspOp#LDS}, {@link DspOp#STS}, {@link DspOp#ROT},
 * {@link DspOp#LDG}): the transpose attention needs for Kᵀ, and a row gather by indices held in
 * the buffer (KV rows of given tokens). A matrix of r rows and c columns (c a multiple of
 * {@code lanes}) lies row-major from buffer row {@code base}: element (i, j) is buffer element
 * {@code base·lanes + i·c + j}, i.e. row {@code base + (i·c + j) / lanes}, lane {@code j mod lanes}.
 *
 * <p><b>Transpose</b> ({@link #transpose}): for each lanes×lanes block, one loop of {@code lanes}
 * iterations of a skewed load (lane l reads block row (l − i) mod lanes), a rotation by i and a
 * skewed store (lane m writes block row (m + i) mod lanes of the output): 3 instructions per block
 * row. Cycles {@code 2 + (r/lanes)·(c/lanes)·(3·lanes + 1)} (SETLEN, the loops, HALT), with no
 * stalls on either pipeline (no instruction reads an FP result).
 *
 * <p><b>Row gather</b> ({@link #gatherRows}): output row k is input row {@code index[k]}, the
 * indices being 16-bit integers in the buffer; per output row: load the index, rotate its lane to
 * lane 0 and broadcast it, scale it to buffer rows ({@code log2(c/lanes)} doublings), then a
 * loop of {@code c/lanes} gathered loads ({@code LDG}) and stores.
 */
public final class DspPermutations {
  private static final int X = 1;
  private static final int INDEX = 2;

  private DspPermutations() {
  }

  /**
   * Transposes the r×c matrix at row {@code src} into the c×r matrix at row {@code dst}; r and c
   * multiples of {@code lanes} and {@code r/lanes}, {@code c/lanes} powers of two.
   */
  public static DspProgram transpose(int r, int c, int lanes, int src, int dst) {
    DspAssembler a = new DspAssembler();
    transpose(a, r, c, lanes, src, dst);
    return a.finish("transpose " + r + "x" + c + " lanes " + lanes);
  }

  /**
   * Appends {@link #transpose}'s instructions but the HALT to {@code a} ({@code SETLEN r·c}, then the blocks' loops:
   * {@code 1 + (r/lanes)·(c/lanes)·(3·lanes + 1)} cycles), for a program that prepares or follows the transpose.
   */
  public static void transpose(DspAssembler a, int r, int c, int lanes, int src, int dst) {
    int rowStride = check("c", c, lanes);
    int colStride = check("r", r, lanes);
    a.setLength(r * c);
    for (int bi = 0; bi < r / lanes; bi++) {
      for (int bj = 0; bj < c / lanes; bj++) {
        int from = src + bi * c + bj;
        int to = dst + bj * r + bi;
        a.loop(lanes, () -> a.emit(DspOp.LDS, X, 0, 0, 0, false, log2(rowStride), from)
            .emit(DspOp.ROT, X, X, 0, 0, false, 0, 0)
            .emit(DspOp.STS, 0, X, 0, 0, true, log2(colStride), to));
      }
    }
  }

  /** Cycles of {@link #transpose} on either pipeline. */
  public static long transposeCycles(int r, int c, int lanes) {
    return 2 + (long) (r / lanes) * (c / lanes) * (3L * lanes + 1);
  }

  /**
   * Gathers {@code count} rows of the matrix of c columns at row {@code src} into row {@code dst}:
   * output row k = input row {@code index[k]}, {@code index} being {@code count} 16-bit integers
   * from buffer row {@code indexRow} (element k in row {@code indexRow + k / lanes}, lane
   * {@code k mod lanes}); {@code c/lanes} a power of two.
   */
  public static DspProgram gatherRows(int count, int c, int lanes, int indexRow, int src, int dst) {
    int perRow = check("c", c, lanes);
    if (count < 1) {
      throw new IllegalArgumentException("count must be >= 1, got " + count);
    }
    DspAssembler a = new DspAssembler();
    a.setLength(count * c);
    for (int k = 0; k < count; k++) {
      int out = dst + k * perRow;
      a.load(INDEX, indexRow + k / lanes).emit(DspOp.ROT, INDEX, INDEX, 0, 0, false, 0, k % lanes)
          .op(DspOp.BCAST, INDEX, INDEX, 0);
      for (int d = 1; d < perRow; d *= 2) {
        a.op(DspOp.IADD, INDEX, INDEX, INDEX);
      }
      a.loop(perRow, () -> a.emit(DspOp.LDG, X, INDEX, 0, 0, false, 0, src).emit(DspOp.ST, 0, X, 0, 0, false, 0, out));
    }
    return a.finish("gather " + count + " rows of " + c + " lanes " + lanes);
  }

  private static int check(String name, int n, int lanes) {
    if (n < lanes || n % lanes != 0 || Integer.bitCount(n / lanes) != 1) {
      throw new IllegalArgumentException(name + " must be lanes (" + lanes + ") times a power of two, got " + n);
    }
    return n / lanes;
  }

  private static int log2(int powerOfTwo) {
    return Integer.numberOfTrailingZeros(powerOfTwo);
  }
}
