package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Disassembler;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;

/**
 * The shared set-up of the GEMM co-simulation tests: a memory image with random X and W (dense, or N:M
 * compressed as {@link Command.Gemm} lays it out, with random distinct positions per group — some past K —
 * and random high bits in the metadata bytes) and a program {@code load X, load W, gemm, store Y, halt};
 * {@link #assertAgrees} runs it on the RTL and the golden ISA simulator and checks bit-exactness, status and
 * every counter (cycles included) against the golden counts and the cycle model.
 */
public final class GemmCosimFixture {
  /** External-memory bases of X, W and Y; the program sits at 0. */
  static final long EXT_X = 0x10000;
  static final long EXT_W = 0x30000;
  static final long EXT_Y = 0x60000;

  private GemmCosimFixture() {
  }

  /** One GEMM program and its memory image. */
  public record Case(Program program, byte[] image, Command.Gemm gemm) {
    public String describe() {
      return Disassembler.disassemble(program);
    }
  }

  /** Line-aligned size of {@code bytes}. */
  public static long lines(MachineParams p, long bytes) {
    long line = p.lineBytes();
    return (bytes + line - 1) / line * line;
  }

  /**
   * A lone GEMM of shape {@code m×k×n} in mode {@code sparsity} ({@link Command#DENSE}, {@link Command#S2_4},
   * {@link Command#S4_8}); X is loaded in whole lines (so the scratchpad holds random bytes past K), Y stored.
   */
  public static Case gemm(MachineParams p, Random r, int m, int k, int n, int sparsity) {
    return gemm(p, r, m, k, n, sparsity, false);
  }

  /**
   * As {@link #gemm(MachineParams, Random, int, int, int, int)}; with {@code accumulate} Y is first loaded with
   * random INT32s, the GEMM adds to it, and a STORE of X (outside Y) follows the GEMM directly, so the rule that
   * a STORE waits for an accumulating GEMM's drain is exercised.
   */
  public static Case gemm(MachineParams p, Random r, int m, int k, int n, int sparsity, boolean accumulate) {
    long xStride = lines(p, k);
    long wStride = lines(p, n);
    long yStride = lines(p, 4L * n);
    Command.Gemm shape = new Command.Gemm(m, k, n, 0, xStride, 0, wStride, 0, yStride, sparsity);
    long wRows = shape.wRows();
    long w = m * xStride;
    long y = w + wRows * wStride;
    byte[] image = new byte[(int) p.extMemBytes()];
    r.nextBytes(image);
    if (sparsity != Command.DENSE) {
      writeCompressed(image, r, shape, (int) EXT_W, wStride);
    }
    Program.Builder b = Program.builder()
        .load(EXT_X, xStride, 0, xStride, xStride, m)
        .load(EXT_W, wStride, w, wStride, n, wRows);
    if (accumulate) {
      b.load(EXT_Y - 0x10000, yStride, y, yStride, yStride, m);
    }
    b.gemm(m, k, n, 0, xStride, w, wStride, y, yStride, sparsity, accumulate);
    if (accumulate) {
      b.store(EXT_Y + 0x10000, xStride, 0, xStride, k, m);
    }
    Program prog = b.store(EXT_Y, yStride, y, yStride, 4L * n, m).halt().build();
    Command.Gemm g = new Command.Gemm(m, k, n, 0, xStride, w, wStride, y, yStride, sparsity, accumulate ? 1 : 0);
    return new Case(prog, RandomPrograms.place(image, prog, 0), g);
  }

  /**
   * N:M metadata rows: per group and column E distinct random positions 0..G−1 (the value rows stay random,
   * so a position past K of the last group may carry a non-zero value, which both sides must drop), each
   * byte's bits above {@code log2 G} random.
   */
  static void writeCompressed(byte[] image, Random r, Command.Gemm g, int base, long stride) {
    int kept = g.kept();
    int group = g.group();
    long valueRows = g.wRows() / 2;
    for (long row = 0; row < valueRows; row += kept) {
      for (int col = 0; col < g.n(); col++) {
        int[] positions = r.ints(0, group).distinct().limit(kept).toArray();
        for (int e = 0; e < kept; e++) {
          int at = (int) (base + (valueRows + row + e) * stride + col);
          image[at] = (byte) (positions[e] | (r.nextInt(256) & ~(group - 1)));
        }
      }
    }
  }

  /** Runs {@code c} and asserts bit-exactness, success and every counter (cycles too) equal to the golden's. */
  public static ProgramCosim.Outcome assertAgrees(NpuRtl rtl, Case c, String what) {
    ProgramCosim.Outcome o = ProgramCosim.run(rtl, c.image(), 0);
    String label = what + " on " + rtl.config() + ":\n" + c.describe();
    assertEquals(ErrorCause.NONE, o.golden().error(), label);
    assertTrue(o.statusMatches(), label + "status " + o.rtl().error() + " vs golden " + o.golden().error());
    assertTrue(o.bitExact(), label + "first differing byte at 0x" + Long.toHexString(o.firstDifference()));
    assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), label);
    return o;
  }
}
