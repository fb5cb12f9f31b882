package org.llmnpu.cosim;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;

/**
 * Random programs for {@link KeptXCosimTest}: X groups of one X load and one to three GEMMs on it, the first copying X
 * and the others {@code xKeep=1}, each with its own W (scratchpad, streamed INT8 or INT4; dense, or N:M in the array's
 * mode, compressed as {@link Command.Gemm} lays it out) and Y, then an {@link Ending}. The program sits at 0, data from
 * 64 KiB; scratchpad: X at 0, the W region after it (reused: a W copy ends before its GEMM starts), three Y regions
 * after that (one a GEMM of a group, stored at once or after the group).
 */
final class KeptXPrograms {
  /** The shape of {@link #sameXThreeTimes}. */
  static final int SAME_M = 12;
  static final int SAME_K = 40;

  /** How a program ends: a halt, or a kept GEMM the X buffer does not hold (BAD_SHAPE at that command). */
  enum Ending { HALT, OTHER_M, OTHER_K_OR_MODE, BEFORE_ANY_COPY }

  /** A program, its image, its planned outcome and its number of kept GEMMs that run. */
  record Case(byte[] image, Program program, Ending ending, ErrorCause expectedError, long failingCommand,
              int keptGemms) {
  }

  private final MachineParams p;
  private final Random r;
  private final byte[] image;
  private final List<Command> commands = new ArrayList<>();
  private final int line;
  private final int maxN;
  private long ext = 1 << 16;
  private int kept;

  private KeptXPrograms(MachineParams p, Random r) {
    this.p = p;
    this.r = r;
    image = new byte[(int) p.extMemBytes()];
    r.nextBytes(image);
    line = p.lineBytes();
    maxN = Math.min(p.maxN(), 4 * p.rows());
  }

  /** A random program on {@code p} (an NPU built with xKeep) that ends as {@code ending} says. */
  static Case generate(MachineParams p, Random r, Ending ending) {
    KeptXPrograms g = new KeptXPrograms(p, r);
    if (ending == Ending.BEFORE_ANY_COPY) {
      int m = 1 + r.nextInt(Math.min(p.maxM(), 3 * p.rows()));
      int k = 1 + r.nextInt(Math.min(p.maxK(), 12 * p.rows()));
      long xStride = g.lines(k);
      if (r.nextBoolean()) {
        g.add(new Command.Load(g.ext, xStride, 0, xStride, k, m));
      }
      return g.badEnd(ending, m, k, Command.DENSE, xStride);
    }
    int[] last = null;
    for (int group = 2 + r.nextInt(2); group > 0; group--) {
      int mode = p.sparsity() != Command.DENSE && r.nextBoolean() ? p.sparsity() : Command.DENSE;
      int m = 1 + r.nextInt(Math.min(p.maxM(), 3 * p.rows()));
      int k = 1 + r.nextInt(Math.min(p.maxK(), 12 * p.rows()));
      g.group(m, k, mode, 1 + r.nextInt(3));
      last = new int[] {m, k, mode};
    }
    if (ending == Ending.HALT) {
      return g.finish(ending, ErrorCause.NONE, -1);
    }
    int m = last[0];
    int k = last[1];
    int mode = last[2];
    if (ending == Ending.OTHER_M) {
      m = m == 1 ? 2 : m - 1;
    } else if (p.sparsity() != Command.DENSE && r.nextBoolean()) {
      mode = mode == Command.DENSE ? p.sparsity() : Command.DENSE;
    } else {
      k = k == 1 ? 2 : k - 1;
    }
    return g.badEnd(ending, m, k, mode, g.lines(k));
  }

  /** One X ({@link #SAME_M}×{@link #SAME_K}, dense) and three scratchpad-W GEMMs on it; with {@code keep} the last two keep X. */
  static Case sameXThreeTimes(MachineParams p, Random r, boolean keep) {
    KeptXPrograms g = new KeptXPrograms(p, r);
    long xStride = g.lines(SAME_K);
    g.add(new Command.Load(g.ext, xStride, 0, xStride, SAME_K, SAME_M));
    g.ext += SAME_M * xStride;
    for (int j = 0; j < 3; j++) {
      g.gemm(SAME_M, SAME_K, Command.DENSE, xStride, j, 0, keep && j > 0, null);
    }
    return g.finish(Ending.HALT, ErrorCause.NONE, -1);
  }

  /** X loaded, then {@code gemms} GEMMs on it (the first copies X), their Y stored at once or after the group. */
  private void group(int m, int k, int mode, int gemms) {
    long xStride = lines(k) + line * r.nextInt(2);
    long extXStride = xStride + line * r.nextInt(2);
    add(new Command.Load(ext, extXStride, 0, xStride, k, m));
    ext += m * extXStride;
    List<Command> stores = r.nextBoolean() ? new ArrayList<>() : null;
    for (int j = 0; j < gemms; j++) {
      if (j > 0 && r.nextInt(4) == 0) {
        // the X source bytes change after the copy: a kept GEMM still computes with the buffer's copy
        add(new Command.Load(ext, xStride, 0, xStride, k, m));
        ext += m * xStride;
      }
      gemm(m, k, mode, xStride, j, p.weightStream() ? r.nextInt(3) : 0, j > 0, stores);
      if (r.nextInt(4) == 0) {
        add(new Command.Fence());
      }
    }
    if (stores != null) {
      stores.forEach(this::add);
    }
  }

  /**
   * A GEMM on the X at 0 (stride {@code xStride}) into Y region {@code slot}, W by {@code path} (0 scratchpad, 1
   * streamed INT8, 2 streamed INT4 when dense, else INT8); with {@code keep} {@code xKeep=1} and random {@code x},
   * {@code xStride}; its store added now or to {@code deferred}.
   */
  private void gemm(int m, int k, int mode, long xStride, int slot, int path, boolean keep, List<Command> deferred) {
    int n = 1 + r.nextInt(maxN);
    boolean int4 = path == 2 && mode == Command.DENSE;
    long yStride = lines(4L * n) + line * r.nextInt(2);
    Command.Gemm shape = new Command.Gemm(m, k, n, 0, xStride, 0, 0, 0, yStride, mode);
    long w;
    long wStride;
    if (path == 0) {
      wStride = lines(n) + line * r.nextInt(2);
      long extWStride = wStride + line * r.nextInt(2);
      if (mode != Command.DENSE) {
        GemmCosimFixture.writeCompressed(image, r, shape, (int) ext, extWStride);
      }
      w = wRegion(m, xStride);
      add(new Command.Load(ext, extWStride, w, wStride, n, shape.wRows()));
      ext += shape.wRows() * extWStride;
    } else {
      wStride = lines(int4 ? (n + 1) / 2 : n) + line * r.nextInt(2);
      w = ext;
      long streamRows = k;
      if (mode != Command.DENSE) {
        StreamedGemmCosimTest.writePackedMetadata(image, r, mode, k, n, (int) ext, wStride);
        long values = shape.kept() * ((k + shape.group() - 1) / shape.group());
        int fields = mode == Command.S2_4 ? 4 : 2;
        streamRows = values + (values + fields - 1) / fields;
      }
      ext += streamRows * wStride;
    }
    long yRegion = m * (lines(4L * maxN) + line);
    long y = wRegion(m, xStride) + (2L * k + 4L * p.rows()) * (lines(maxN) + 2L * line) + slot * yRegion;
    if (y + yRegion > p.spadBytes()) {
      throw new IllegalStateException("the scratchpad layout does not fit: Y ends at " + (y + yRegion));
    }
    long randomX = r.nextInt() & 0xFFFFFFFFL;
    long randomStride = r.nextInt(1 << 16);
    long x = keep ? randomX : 0;
    long stride = keep ? randomStride : xStride;
    add(new Command.Gemm(m, k, n, x, stride, w, wStride, y, yStride, mode, 0, path > 0 ? 1 : 0, int4 ? 1 : 0, 0, 0,
        keep ? 1 : 0));
    if (keep) {
      kept++;
    }
    long extYStride = yStride + line * r.nextInt(2);
    Command store = new Command.Store(ext, extYStride, y, yStride, 4L * n, m);
    ext += m * extYStride;
    if (deferred != null) {
      deferred.add(store);
    } else {
      add(store);
    }
  }

  /** The scratchpad's W region: after X. */
  private long wRegion(int m, long xStride) {
    return lines(m * xStride + line);
  }

  /** A kept GEMM of {@code m×k} in {@code mode} with an otherwise valid scratchpad W, the program's last command. */
  private Case badEnd(Ending ending, int m, int k, int mode, long xStride) {
    Command.Gemm shape = new Command.Gemm(m, k, 8, 0, xStride, 0, lines(8), 0, lines(32), mode);
    long w = wRegion(m, xStride);
    long at = commands.size();
    add(new Command.Gemm(m, k, 8, 0, xStride, w, lines(8), w + shape.wRows() * lines(8), lines(32), mode, 0, 0, 0, 0,
        0, 1));
    return finish(ending, ErrorCause.BAD_SHAPE, at);
  }

  private Case finish(Ending ending, ErrorCause error, long at) {
    if (ext > p.extMemBytes()) {
      throw new IllegalStateException("the program's data do not fit the memory: " + ext);
    }
    Program.Builder b = Program.builder();
    commands.forEach(b::add);
    Program prog = b.halt().build();
    return new Case(RandomPrograms.place(image, prog, 0), prog, ending, error, at, kept);
  }

  private void add(Command c) {
    commands.add(c);
    ext = lines(ext);
  }

  private long lines(long bytes) {
    return (bytes + line - 1) / line * line;
  }
}
