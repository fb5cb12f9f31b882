package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;

/**
 * An {@code npu-isa} program that runs a list of GEMMs with their DMA on an NPU, tiled to its
 * engine ({@code maxM/maxK/maxN}) and scratchpad: per tile LOAD X, LOAD W, GEMM, and the STORE
 * of the previous tile's INT32 results. Operands live in the scratchpad's lower half and results
 * alternate between its two upper quarters, so a tile's results leave while the next tile
 * computes and the next operands stream in while the array runs, and no LOAD touches the
 * results of a GEMM still running. Operands live tile by tile in external memory (each block line-aligned with its
 * own stride) filled with seeded random bytes; everything else is zero. A GEMM whose K is split
 * stores one INT32 partial result per K tile (the host adds them; their traffic is counted).
 *
 * <p>With {@code int4Weights}, the weights of the projections (not the attention's K and V)
 * are stored as packed INT4 and brought in with {@code load4}, which widens them to INT8.
 */
public final class GemmProgram {
  /**
   * The image with the program at address 0: the NPU's whole external memory, or on an NPU with more than a byte array
   * holds (edge-64: 4 GiB) the bounded image of the program's data ({@link MemoryImage#dataImageLength}).
   */
  public record Built(byte[] image, Program program, int tiles, long macs) {
  }

  private record Tile(DecoderGemms.Gemm g, int m, int k, int n, boolean int4) {
  }

  private GemmProgram() {
  }

  private static long up(long v, long to) {
    return (v + to - 1) / to * to;
  }

  /** True when a GEMM's weights are a model's weights (INT4-able), not attention operands. */
  static boolean weightGemm(DecoderGemms.Gemm g) {
    return !g.kind().equals("scores") && !g.kind().equals("values");
  }

  public static Built build(MachineParams p, List<DecoderGemms.Gemm> gemms, boolean int4Weights, long seed) {
    int line = p.lineBytes();
    List<Tile> tiles = new ArrayList<>();
    int[] shape = new int[3];
    for (DecoderGemms.Gemm g : gemms) {
      fit(p, g, shape);
      for (int n0 = 0; n0 < g.n(); n0 += shape[2]) {
        for (int m0 = 0; m0 < g.m(); m0 += shape[0]) {
          for (int k0 = 0; k0 < g.k(); k0 += shape[1]) {
            tiles.add(new Tile(g, Math.min(shape[0], g.m() - m0), Math.min(shape[1], g.k() - k0),
                Math.min(shape[2], g.n() - n0), int4Weights && weightGemm(g)));
          }
        }
      }
    }
    long programBytes = (4L * tiles.size() + 1) * Command.BYTES;
    long ext = up(programBytes, 1 << 16);
    List<long[]> operands = new ArrayList<>();
    Program.Builder b = Program.builder();
    Command.Store deferred = null;
    int toggle = 0;
    long macs = 0;
    for (Tile t : tiles) {
      long xStride = up(t.k, line);
      long wRow = t.int4 ? (t.n + 1) / 2 : t.n;
      long wStride = up(t.int4 ? 2 * wRow : t.n, line);
      long yStride = up(4L * t.n, line);
      long xBytes = t.m * xStride;
      long wBytes = t.k * wStride;
      long yBytes = t.m * yStride;
      long x = 0;
      long w = xBytes;
      long quarter = p.spadBytes() / 4;
      long y = 2 * quarter + toggle * quarter;
      if (w + wBytes > 2 * quarter || yBytes > quarter) {
        throw new IllegalStateException("tile " + t.m + "x" + t.k + "x" + t.n + " does not fit the scratchpad");
      }
      long extX = ext;
      long extXStride = up(t.k, line);
      long extW = up(extX + t.m * extXStride, line);
      long extWStride = up(wRow, line);
      long extY = up(extW + t.k * extWStride, line);
      ext = up(extY + t.m * yStride, line);
      if (ext > p.extMemBytes()) {
        throw new IllegalArgumentException("the decoder's operands need more than the NPU's " + (p.extMemBytes() >> 20)
            + " MiB of external memory (extMemMiB); use fewer prompt tokens or more memory");
      }
      operands.add(new long[] {extX, extXStride, t.k, t.m});
      operands.add(new long[] {extW, extWStride, wRow, t.k});
      b.load(extX, extXStride, x, xStride, t.k, t.m);
      if (t.int4) {
        b.load4(extW, extWStride, w, wStride, wRow, t.k);
      } else {
        b.load(extW, extWStride, w, wStride, t.n, t.k);
      }
      b.gemm(t.m, t.k, t.n, x, xStride, w, wStride, y, yStride);
      if (deferred != null) {
        b.add(deferred);
      }
      deferred = new Command.Store(extY, yStride, y, yStride, 4L * t.n, t.m);
      toggle ^= 1;
      macs += (long) t.m * t.k * t.n;
    }
    if (deferred != null) {
      b.add(deferred);
    }
    b.halt();
    Program prog = b.build();
    byte[] image = new byte[MemoryImage.dataImageLength(p, ext)];
    Random rnd = new Random(seed);
    for (long[] o : operands) {
      randomRows(image, rnd, o[0], o[1], o[2], o[3]);
    }
    byte[] code = prog.bytes();
    System.arraycopy(code, 0, image, 0, code.length);
    return new Built(image, prog, tiles.size(), macs);
  }

  private static void randomRows(byte[] image, Random rnd, long at, long stride, long rowBytes, long rows) {
    byte[] row = new byte[Math.toIntExact(rowBytes)];
    for (long r = 0; r < rows; r++) {
      rnd.nextBytes(row);
      System.arraycopy(row, 0, image, Math.toIntExact(at + r * stride), row.length);
    }
  }

  /**
   * The tile shape {M, K, N} of a GEMM: the engine's limits, then halved (largest first) until
   * X and W fit the scratchpad's lower half and the results one of its upper quarters.
   */
  static void fit(MachineParams p, DecoderGemms.Gemm g, int[] shape) {
    int line = p.lineBytes();
    int m = Math.min(g.m(), p.maxM());
    int k = Math.min(g.k(), p.maxK());
    int n = Math.min(g.n(), p.maxN());
    long quarter = p.spadBytes() / 4;
    while (m * up(k, line) + k * up(n + 1, line) > 2 * quarter || m * up(4L * n, line) > quarter) {
      if (n >= k && n >= m && n > 1) {
        n = (n + 1) / 2;
      } else if (k >= m && k > 1) {
        k = (k + 1) / 2;
      } else if (m > 1) {
        m = (m + 1) / 2;
      } else {
        throw new IllegalArgumentException("the scratchpad (" + p.spadBytes() + " bytes) cannot hold a 1x1x1 GEMM tile");
      }
    }
    shape[0] = m;
    shape[1] = k;
    shape[2] = n;
  }
}
