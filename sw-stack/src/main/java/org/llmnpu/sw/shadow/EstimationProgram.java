package org.llmnpu.sw.shadow;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.CommandCodec;
import org.llmnpu.isa.CycleModel;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.sw.lower.MemoryImage;

/**
 * ShadowNPU's importance estimation as one {@code npu-isa} program: a list of tasks, each the dense INT8 product
 * {@code S = Q · Kᵀ} of {@code m} query rows and {@code n} keys of one head dimension {@code d} (the queries of
 * every head that shares a KV head and a bucket stacked in M: one merged task), INT32 scores to memory for the
 * CPU's top-k.
 *
 * <p>Memory, per task, each block line-aligned: the query codes {@code [m × d]} (row stride {@code ⌈d⌉} lines),
 * the key codes transposed {@code [d × n]} (the GEMM's W: row stride {@code ⌈n⌉}), the scores
 * {@code [m × n]} INT32 (row stride {@code ⌈4n⌉}). The program (at address 0, its region rounded up to 64 KiB)
 * runs per tile of up to {@code maxM × maxN} — {@code load} X, {@code load} W, {@code gemm}, then the
 * {@code store} of the previous tile's scores — with the scores alternating between the scratchpad's two upper
 * quarters, so a tile's scores leave while the next tile computes (the pattern of {@code GemmProgram}).
 *
 * <p>Cycles: those of {@code npu-isa}'s {@link CycleModel}, which the RTL matches cycle for cycle; {@link #cycles}
 * walks the commands on it without data (equal to the golden ISA simulator's count, {@code EstimationProgramTest}),
 * so LLaMA-sized shapes cost nothing to time. Tiles: {@code maxM} rows, {@code maxN} columns, halved until X and W
 * fit the scratchpad's lower half and Y one quarter; {@code d ≤ maxK}.
 */
public final class EstimationProgram {
  /** One product: {@code m} query rows, {@code n} keys, head dimension {@code d}. */
  public record Shape(int m, int n, int d) {
    public Shape {
      if (m < 1 || n < 1 || d < 1) {
        throw new IllegalArgumentException("an estimation task needs m, n, d >= 1, got " + m + "x" + n + "x" + d);
      }
    }
  }

  /** Where a task's operands and scores live in memory. */
  public record Placement(Shape shape, long q, long qStride, long kT, long kTStride, long y, long yStride) {
  }

  /** The program (at address 0) and each task's placement; {@code end} is the first byte past the data. */
  public record Plan(Program program, List<Placement> placements, long end, long macs) {
  }

  private EstimationProgram() {
  }

  private static long up(long v, long to) {
    return (v + to - 1) / to * to;
  }

  /** The program and memory layout of {@code shapes} on {@code p}, without data. */
  public static Plan plan(MachineParams p, List<Shape> shapes) {
    return plan(p, shapes, true);
  }

  /**
   * As {@link #plan(MachineParams, List)}; with {@code checkMemory} false the layout may run past the NPU's memory
   * (for {@link #cycles} only: a LLaMA-sized head's scores do not fit a 16 MiB image, its timing does not need one).
   */
  public static Plan plan(MachineParams p, List<Shape> shapes, boolean checkMemory) {
    int line = p.lineBytes();
    long quarter = p.spadBytes() / 4;
    List<int[]> tiles = new ArrayList<>();
    for (Shape s : shapes) {
      if (s.d() > p.maxK()) {
        throw new IllegalArgumentException("head dimension " + s.d() + " exceeds the NPU's maxK " + p.maxK());
      }
      int tm = Math.min(s.m(), p.maxM());
      int tn = Math.min(s.n(), p.maxN());
      while (tm * up(s.d(), line) + s.d() * up(tn, line) > 2 * quarter || tm * up(4L * tn, line) > quarter) {
        if (tn > line) {
          tn = (int) up(tn / 2, line);
        } else if (tm > 1) {
          tm = (tm + 1) / 2;
        } else {
          throw new IllegalArgumentException("the scratchpad (" + p.spadBytes() + " bytes) cannot hold a 1x"
              + s.d() + "x" + tn + " estimation tile");
        }
      }
      tiles.add(new int[] {tm, tn});
    }
    long ext = 0;
    int commands = 1;
    for (int i = 0; i < shapes.size(); i++) {
      Shape s = shapes.get(i);
      long mt = (s.m() + tiles.get(i)[0] - 1) / tiles.get(i)[0];
      long nt = (s.n() + tiles.get(i)[1] - 1) / tiles.get(i)[1];
      commands += (int) (4 * mt * nt);
    }
    ext = up((long) commands * Command.BYTES, 1 << 16);
    List<Placement> placements = new ArrayList<>();
    for (Shape s : shapes) {
      long qStride = up(s.d(), line);
      long kTStride = up(s.n(), line);
      long yStride = up(4L * s.n(), line);
      long q = ext;
      long kT = up(q + s.m() * qStride, line);
      long y = up(kT + s.d() * kTStride, line);
      ext = up(y + s.m() * yStride, line);
      placements.add(new Placement(s, q, qStride, kT, kTStride, y, yStride));
    }
    if (checkMemory && ext > p.extMemBytes()) {
      throw new IllegalArgumentException("the estimation needs " + ext + " bytes of memory; the NPU has "
          + p.extMemBytes() + " (extMemMiB): use a smaller context bucket or fewer merged heads");
    }
    Program.Builder b = Program.builder();
    Command.Store deferred = null;
    int toggle = 0;
    long macs = 0;
    for (int i = 0; i < shapes.size(); i++) {
      Placement pl = placements.get(i);
      Shape s = pl.shape();
      int tm = tiles.get(i)[0];
      int tn = tiles.get(i)[1];
      for (int n0 = 0; n0 < s.n(); n0 += tn) {
        int n = Math.min(tn, s.n() - n0);
        for (int m0 = 0; m0 < s.m(); m0 += tm) {
          int m = Math.min(tm, s.m() - m0);
          long xStride = up(s.d(), line);
          long wStride = up(n, line);
          long w = up((long) m * xStride, line);
          long yStride = up(4L * n, line);
          long y = 2 * quarter + toggle * quarter;
          b.load(pl.q() + m0 * pl.qStride(), pl.qStride(), 0, xStride, s.d(), m);
          b.load(pl.kT() + n0, pl.kTStride(), w, wStride, n, s.d());
          b.gemm(m, s.d(), n, 0, xStride, w, wStride, y, yStride);
          if (deferred != null) {
            b.add(deferred);
          }
          deferred = new Command.Store(pl.y() + m0 * pl.yStride() + 4L * n0, pl.yStride(), y, yStride, 4L * n, m);
          toggle ^= 1;
          macs += (long) m * s.d() * n;
        }
      }
    }
    if (deferred != null) {
      b.add(deferred);
    }
    b.halt();
    return new Plan(b.build(), placements, ext, macs);
  }

  /**
   * The memory image of a plan: the program at 0, each task's query codes {@code q[t]} ({@code m × d}) and key
   * codes {@code k[t]} ({@code n × d}, written transposed). The image is the NPU's whole external memory, or on an
   * NPU with more than a byte array holds (edge-64: 4 GiB) the bounded image of the plan's data ({@link
   * MemoryImage#dataImageLength}), which the golden simulator runs as the memory's beginning.
   */
  public static byte[] image(MachineParams p, Plan plan, List<byte[][]> q, List<byte[][]> k) {
    if (q.size() != plan.placements().size() || k.size() != plan.placements().size()) {
      throw new IllegalArgumentException("need the codes of " + plan.placements().size() + " tasks, got "
          + q.size() + " and " + k.size());
    }
    byte[] image = new byte[MemoryImage.dataImageLength(p, plan.end())];
    byte[] code = plan.program().bytes();
    System.arraycopy(code, 0, image, 0, code.length);
    for (int t = 0; t < q.size(); t++) {
      Placement pl = plan.placements().get(t);
      Shape s = pl.shape();
      if (q.get(t).length != s.m() || k.get(t).length != s.n()) {
        throw new IllegalArgumentException("task " + t + " is " + s + "; got " + q.get(t).length + " query rows and "
            + k.get(t).length + " keys");
      }
      for (int i = 0; i < s.m(); i++) {
        System.arraycopy(q.get(t)[i], 0, image, (int) (pl.q() + i * pl.qStride()), s.d());
      }
      for (int j = 0; j < s.n(); j++) {
        for (int c = 0; c < s.d(); c++) {
          image[(int) (pl.kT() + c * pl.kTStride() + j)] = k.get(t)[j][c];
        }
      }
    }
    return image;
  }

  /** Task {@code t}'s INT32 scores {@code [m × n]} read back from the memory after the run. */
  public static int[][] scores(byte[] memory, Plan plan, int t) {
    Placement pl = plan.placements().get(t);
    int[][] s = new int[pl.shape().m()][pl.shape().n()];
    for (int i = 0; i < s.length; i++) {
      for (int j = 0; j < s[i].length; j++) {
        int a = (int) (pl.y() + i * pl.yStride() + 4L * j);
        s[i][j] = (memory[a] & 0xFF) | (memory[a + 1] & 0xFF) << 8 | (memory[a + 2] & 0xFF) << 16 | memory[a + 3] << 24;
      }
    }
    return s;
  }

  /**
   * The program's cycles on {@code p}'s {@link CycleModel}, walked command by command as the golden ISA simulator
   * walks them, without data (its {@code load}, {@code gemm}, {@code store} and {@code halt}).
   */
  public static long cycles(MachineParams p, Program program) {
    CycleModel cm = new CycleModel(p);
    cm.begin(0);
    int line = p.lineBytes();
    for (int i = 0; i < program.size(); i++) {
      cm.fetchAndDecode();
      Command c = CommandCodec.decode(program.words(i)).orElseThrow();
      if (c instanceof Command.Load l) {
        cm.dispatch(true, false);
        cm.load(l.rows() * ((l.rowBytes() + line - 1) / line));
      } else if (c instanceof Command.Gemm g) {
        cm.dispatch(false, false);
        cm.gemm((int) g.m(), (int) g.k(), (int) g.n(), (int) g.wRows(), false, g.y(),
            g.y() + (g.m() - 1) * g.yStride() + 4 * g.n());
      } else if (c instanceof Command.Store s) {
        boolean independent = !cm.resultsOverlap(s.spad(), s.spad() + (s.rows() - 1) * s.spadStride() + s.rowBytes());
        cm.dispatch(false, independent);
        cm.store(s.rows() * ((s.rowBytes() + line - 1) / line));
      } else if (c instanceof Command.Halt) {
        cm.dispatch(false, false);
        return cm.now();
      } else {
        throw new IllegalArgumentException("an estimation program holds load, gemm, store and halt; got " + c);
      }
    }
    throw new IllegalArgumentException("the program does not halt");
  }
}
