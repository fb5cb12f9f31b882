package org.llmnpu.cosim;

import java.util.Random;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;

/**
 * Random valid NPU programs for co-simulation: chains of DMA loads → GEMM → DMA store with ragged
 * shapes, random line-aligned strides with gaps, extra DMA traffic and fences, on a random memory
 * image. The program sits at address 0; data lives from 64 KiB on. Programs read only scratchpad
 * bytes they wrote (its contents are undefined at start).
 */
public final class RandomPrograms {
  /** An image with the program in it. */
  public record Case(byte[] image, Program program, long programAddress) {
  }

  private RandomPrograms() {
  }

  public static Case generate(MachineParams p, Random r, int gemms) {
    return generate(p, r, gemms, r.nextBoolean());
  }

  /**
   * With {@code overlapped}, the operands of each GEMM are loaded right after the previous GEMM
   * (while its array runs) and each result is stored one GEMM later (while the next GEMM runs);
   * results alternate between the two upper quarters of the scratchpad, operands live in the lower
   * half, so no LOAD writes a result still draining.
   */
  public static Case generate(MachineParams p, Random r, int gemms, boolean overlapped) {
    return generate(p, r, gemms, overlapped, false);
  }

  /**
   * As {@link #generate(MachineParams, Random, int, boolean)}; with {@code streamed} each GEMM picks its W path at
   * random: loaded into the scratchpad, or streamed from the memory ({@code wStream=1}) as INT8 or as INT4
   * ({@code wInt4=1}, rows of {@code ceil(N/2)} bytes), with no load of W.
   */
  public static Case generate(MachineParams p, Random r, int gemms, boolean overlapped, boolean streamed) {
    byte[] image = new byte[(int) p.extMemBytes()];
    r.nextBytes(image);
    int line = p.lineBytes();
    Program.Builder b = Program.builder();
    long ext = 1 << 16;
    Command.Store deferred = null;
    for (int g = 0; g < gemms; g++) {
      int m = 1 + r.nextInt(Math.min(p.maxM(), 3 * p.rows()));
      int k = 1 + r.nextInt(Math.min(p.maxK(), 5 * p.rows()));
      int n = 1 + r.nextInt(Math.min(p.maxN(), 3 * p.rows()));
      long xStride = roundUp(k, line) + line * r.nextInt(2);
      long wStride = roundUp(n, line) + line * r.nextInt(2);
      long yStride = roundUp(4L * n, line) + line * r.nextInt(2);
      long x = 0;
      long w = x + m * xStride;
      // Overlapped: results alternate between two quarters of the scratchpad, so the store of one
      // GEMM's results runs while the next GEMM computes into the other quarter.
      long quarter = p.spadBytes() / 4;
      long y = overlapped ? 2 * quarter + (g % 2) * quarter : w + k * wStride;
      long yLimit = overlapped ? y + quarter : p.spadBytes();
      if (y + m * yStride > yLimit || (overlapped && w + k * wStride > 2 * quarter)) {
        g--;
        continue;
      }
      int wPath = streamed ? r.nextInt(3) : 0;
      long wRowBytes = wPath == 2 ? (n + 1) / 2 : n;
      long extX = ext;
      long extXStride = xStride + line * r.nextInt(3);
      long extW = roundUp(extX + m * extXStride, line);
      long extWStride = (wPath == 0 ? wStride : roundUp(wRowBytes, line)) + line * r.nextInt(3);
      long extY = roundUp(extW + k * extWStride, line);
      long extYStride = yStride + line * r.nextInt(3);
      ext = roundUp(extY + m * extYStride, line) + line;
      if (ext > p.extMemBytes()) {
        break;
      }
      b.load(extX, extXStride, x, xStride, k, m);
      if (wPath == 0) {
        b.load(extW, extWStride, w, wStride, n, k);
      }
      if (r.nextBoolean()) {
        b.fence();
      }
      if (wPath == 0) {
        b.gemm(m, k, n, x, xStride, w, wStride, y, yStride);
      } else {
        b.gemmStreamed(m, k, n, x, xStride, extW, extWStride, y, yStride, wPath == 2);
      }
      Command.Store store = new Command.Store(extY, extYStride, y, yStride, 4L * n, m);
      if (overlapped) {
        if (deferred != null) {
          b.add(deferred);
        }
        deferred = store;
      } else {
        b.add(store);
      }
      if (r.nextInt(3) == 0) {
        // Copy some loaded operand bytes back out, with a ragged row length and overlapping rows
        // (the scratchpad's contents are undefined until written, so only written bytes are read).
        int rowBytes = 1 + r.nextInt(k);
        b.store(ext, line, x, xStride, rowBytes, Math.min(m, 3));
        ext += 3L * line + roundUp(rowBytes, line) + line;
      }
    }
    if (deferred != null) {
      b.add(deferred);
    }
    b.halt();
    Program prog = b.build();
    byte[] code = prog.bytes();
    System.arraycopy(code, 0, image, 0, code.length);
    return new Case(image, prog, 0);
  }

  static long roundUp(long v, long to) {
    return (v + to - 1) / to * to;
  }

  /** Writes a program into an image at an address (a helper for hand-written cases). */
  public static byte[] place(byte[] image, Program prog, long address) {
    byte[] code = prog.bytes();
    System.arraycopy(code, 0, image, (int) address, code.length);
    return image;
  }

  /** Bytes of one command, for address arithmetic in tests. */
  public static int commandBytes() {
    return Command.BYTES;
  }
}
