package org.llmnpu.isa.dsp;

import static org.llmnpu.isa.dsp.DspOp.ADD16;
import static org.llmnpu.isa.dsp.DspOp.ADD32;
import static org.llmnpu.isa.dsp.DspOp.BCAST;
import static org.llmnpu.isa.dsp.DspOp.EXPO;
import static org.llmnpu.isa.dsp.DspOp.FIX;
import static org.llmnpu.isa.dsp.DspOp.IADD;
import static org.llmnpu.isa.dsp.DspOp.IHALF;
import static org.llmnpu.isa.dsp.DspOp.ISUB;
import static org.llmnpu.isa.dsp.DspOp.LSHIFT;
import static org.llmnpu.isa.dsp.DspOp.MAX16;
import static org.llmnpu.isa.dsp.DspOp.MUL16;
import static org.llmnpu.isa.dsp.DspOp.MUL32;
import static org.llmnpu.isa.dsp.DspOp.NARROW;
import static org.llmnpu.isa.dsp.DspOp.SCALB16;
import static org.llmnpu.isa.dsp.DspOp.SUB16;
import static org.llmnpu.isa.dsp.DspOp.SUB32;
import static org.llmnpu.isa.dsp.DspOp.WIDEN;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Compiles each {@link DspKernel} to a DSP program whose results equal the numerics golden
 * kernels ({@code org.llmnpu.numerics.vector}: {@code Softmax}, {@code Norms},
 * {@code Activations}, {@code ElementWise}, {@code Fp16Math}, {@code Reduction}) bit for bit:
 * every golden step is one instruction, in the golden order.
 *
 * <p>Structure: a prologue loads the constants (10 {@code LI}) and the length ({@code SETLEN});
 * a pass over the vector is a {@code LOOP} over its rows; a reduction accumulates per lane with
 * masked instructions (lane l folds elements ≡ l mod lanes, in order) and then runs the
 * {@code log2(lanes)} tree steps ({@code LSHIFT} + op) and a {@code BCAST} — the order of
 * {@code Reduction}. exp, reciprocal and rsqrt are range reduction, a degree-2 table polynomial
 * whose Horner steps are {@code FMA16} (8 instructions), a Newton step and a {@code FIX} of the special cases: 15, 17 and 20
 * instructions. Cycle counts: {@link DspCycleFormula}.
 */
public final class DspKernels {
  // constants
  static final int ZERO = 0;
  static final int LOG2E = 1;
  static final int LN2_HI = 2;
  static final int LN2_LO = 3;
  static final int ONE = 4;
  static final int TWO = 5;
  static final int MINUS_HALF = 6;
  static final int THREE_HALVES = 7;
  static final int GELU_C2 = 8;
  static final int GELU_C3 = 9;
  static final int INV_N = 10;
  static final int EPS = 11;
  static final int NEG_INF = 12;
  // scalars (broadcast per-kernel values)
  static final int S1 = 13;
  static final int S2 = 14;
  static final int S3 = 15;
  static final int S4 = 16;
  static final int S5 = 17;
  static final int S6 = 18;
  // per-element values and temporaries
  static final int X = 19;
  static final int V = 20;
  static final int W = 21;
  static final int Y = 22;
  static final int[] TEMPS = {23, 24, 25, 26, 27, 28, 29, 30, 31};
  /** Instructions in the prologue (constants and SETLEN). */
  public static final int PROLOGUE = 13;

  private static final int FP32_EXPONENT = 1;
  private static final int NO_REGISTER = DspSumOfSquares.PLAIN;

  private final DspAssembler a = new DspAssembler();
  /** Registers the kernel never uses (the interleaved copies' registers), ascending. */
  private List<Integer> free = List.of();
  /** Rows per iteration of the interleaved passes (lowered to what fits). */
  private int copies = 2;
  /** The fewest copies that fit over the passes emitted so far. */
  private int fitted = Integer.MAX_VALUE;
  private int length;
  /** The register of RMSNorm's rotated sum of squares ({@link DspSumOfSquares}), or {@link #NO_REGISTER}: not rotated. */
  private int squares = NO_REGISTER;
  private final DspLayout layout;
  private final DspMath math;
  /** exp, reciprocal, rsqrt and x·sigmoid(v) emitted into {@link #a}. */
  private final DspMathCode fn;
  private final Options options;

  /**
   * Code-generation options; {@link #DEFAULT} gives the programs the default DSP runs.
   *
   * @param fma32 use {@link DspOp#FMA32} (a DSP built with {@code fma32}) where it fuses a multiply and
   *              an add without changing a result: RMSNorm's sum of squares ({@code s + x·x}: the
   *              square of an FP16 value is exact in FP32) and RoPE's {@code x_hi·cos + x_lo·sin} (both
   *              products exact); one instruction less per row in each
   * @param interleave run every row-independent pass two rows per iteration ({@link DspInterleave}):
   *                   the instructions of two rows alternate, so a result is used two issue slots
   *                   after it is produced and the two-stage execute's interlock never stalls them.
   *                   SoftMax's exp pass then stores e^x first and sums it in a pass of its own (same
   *                   order, same sum); the prologue loads only the constants the kernel reads
   * @param interleaveRows rows per iteration with {@code interleave}, 2..4 (2 unless given): K rows hide
   *                   an interlock of up to K execute stages; a pass whose K copies' registers do not
   *                   fit runs with fewer ({@link #rowsPerIteration}, the same for every pass of a kernel)
   * @param rotateSumOfSquares software-pipeline RMSNorm's sum of squares where it applies ({@link DspSumOfSquares};
   *                   not in {@link #forPipeline}: {@link DspCycleFormula}'s tables count the programs without it)
   */
  public record Options(boolean fma32, boolean interleave, int interleaveRows, boolean rotateSumOfSquares) {
    /** The default DSP's programs. */
    public static final Options DEFAULT = new Options(false, false);

    /** Two rows per iteration with {@code interleave}. */
    public Options(boolean fma32, boolean interleave) {
      this(fma32, interleave, 2);
    }

    /** RMSNorm's sum of squares not rotated. */
    public Options(boolean fma32, boolean interleave, int interleaveRows) {
      this(fma32, interleave, interleaveRows, false);
    }

    public Options {
      if (interleaveRows < 2 || interleaveRows > 4) {
        throw new IllegalArgumentException("interleaveRows must be 2, 3 or 4, got " + interleaveRows);
      }
    }

    /** The options for a DSP with {@code pipeline}: interleaved, as many rows per iteration as execute stages (at least 2). */
    public static Options forPipeline(DspPipeline pipeline, boolean fma32) {
      return new Options(fma32, true, Math.max(2, pipeline.executeStages()));
    }

    /** These options with RMSNorm's sum of squares rotated ({@code on}) or not. */
    public Options withSumOfSquaresRotated(boolean on) {
      return new Options(fma32, interleave, interleaveRows, on);
    }
  }

  /**
   * The rows per iteration {@code kernel}'s interleaved passes run with {@code options} (at most
   * {@link Options#interleaveRows()}, fewer when the copies' registers do not fit; 1: not interleaved).
   */
  public static int rowsPerIteration(DspKernel kernel, Options options) {
    if (!options.interleave()) {
      return 1;
    }
    // 64 elements on 8 lanes: the registers a kernel uses do not depend on the length (the trees use
    // S6 at any lane count above 1, and the fit is decided with S6 reserved)
    DspKernels k = compiling(kernel, 64, 8, 1e-5f, DspMath.DEFAULT, options, NO_REGISTER);
    return Math.min(k.fitted, options.interleaveRows());
  }

  private DspKernels(DspLayout layout, DspMath math, Options options) {
    this.layout = layout;
    this.math = math;
    this.fn = new DspMathCode(a, math);
    this.options = options;
  }

  /**
   * The program of {@code kernel} for vector length {@code len} on {@code lanes} lanes.
   *
   * @param eps the norms' epsilon (FP32, finite, &gt; 0); ignored by the other kernels
   */
  public static DspProgram compile(DspKernel kernel, int len, int lanes, float eps, DspMath math) {
    return compile(kernel, len, lanes, eps, math, Options.DEFAULT);
  }

  /** The program of {@code kernel} compiled with {@code options} (same results as the default program). */
  public static DspProgram compile(DspKernel kernel, int len, int lanes, float eps, DspMath math, Options options) {
    String name = kernel.cliName() + " len " + len + " lanes " + lanes;
    return DspSumOfSquares.compile(kernel, len, lanes, options, squares -> compiling(kernel, len, lanes, eps, math,
        options, squares).a.finish(squares == NO_REGISTER ? name : name + " (sum of squares rotated)"));
  }

  /** The compiler after compiling: every interleaved pass with the same rows per iteration (what fits in all). */
  private static DspKernels compiling(DspKernel kernel, int len, int lanes, float eps, DspMath math, Options options,
      int squares) {
    DspKernels k = compiling(kernel, len, lanes, eps, math, options, options.interleaveRows(), squares);
    if (k.fitted < options.interleaveRows()) {
      k = compiling(kernel, len, lanes, eps, math, options, k.fitted, squares);
    }
    return k;
  }

  private static DspKernels compiling(DspKernel kernel, int len, int lanes, float eps, DspMath math, Options options,
      int copies, int squares) {
    if (lanes < 1 || Integer.bitCount(lanes) != 1) {
      throw new IllegalArgumentException("lanes must be a power of two, got " + lanes);
    }
    if (kernel.usesEps() && !(eps > 0 && Float.isFinite(eps))) {
      throw new IllegalArgumentException("eps must be finite and > 0, got " + eps);
    }
    DspKernels k = new DspKernels(new DspLayout(kernel, len, lanes), math, options);
    k.length = kernel == DspKernel.ROPE ? len / 2 : len;
    k.copies = copies;
    k.squares = squares;
    Set<Integer> used = null;
    if (options.interleave()) {
      // the registers of the plain program past its prologue: the rest are free (at 2 lanes or more,
      // so that the reduction trees' register counts as used at every lane count)
      DspProgram plain = compile(kernel, len, Math.max(2, lanes), eps, math, new Options(options.fma32(), false));
      used = new TreeSet<>();
      for (DspInstruction in : plain.instructions().subList(PROLOGUE, plain.size())) {
        used.add(in.rd());
        used.add(in.ra());
        used.add(in.rb());
        used.add(in.rc());
      }
      List<Integer> free = new ArrayList<>();
      for (int r = 0; r < DspInstruction.REGISTERS; r++) {
        if (!used.contains(r)) {
          free.add(r);
        }
      }
      k.free = free;
    }
    k.prologue(k.length, eps, used);
    switch (kernel) {
      case SOFTMAX -> k.softmax();
      case RMSNORM -> k.rmsNorm();
      case LAYERNORM -> k.layerNorm();
      case SILU -> k.elementWise(x -> k.fn.timesSigmoid(Y, x, x));
      case GELU -> k.elementWise(k::gelu);
      case SWIGLU -> k.swiglu();
      case RESIDUAL -> k.residual();
      case ROPE -> k.rope();
      case EXP -> k.elementWise(x -> k.fn.exp(Y, x));
      case RECIPROCAL -> k.elementWise(x -> k.fn.reciprocal(Y, x, TEMPS));
      case RSQRT -> k.elementWise(x -> k.fn.rsqrt(Y, x, TEMPS));
      case MAX -> k.maxReduction();
      case SUM -> k.sumReduction();
      default -> throw new IllegalStateException(kernel.toString());
    }
    return k;
  }

  /** The constants (all, or only those in {@code used}) and the length. */
  private void prologue(int elements, float eps, Set<Integer> used) {
    int[] values = {0, math.log2e(), math.ln2Hi(), math.ln2Lo(), 0x3C00, 0x4000, 0xB800, 0x3E00, math.geluC2(),
        math.geluC3(), Float.floatToRawIntBits((float) (1.0 / elements)), Float.floatToRawIntBits(eps)};
    for (int r = ZERO; r <= EPS; r++) {
      if (used == null || used.contains(r)) {
        a.li(r, values[r]);
      }
    }
    a.emit(DspOp.SETLEN, 0, 0, 0, 0, false, 0, elements);
  }

  /** A pass over the rows whose body handles each row on its own: interleaved with the option. */
  private void rowPass(Runnable body) {
    if (options.interleave()) {
      List<DspInstruction> captured = a.capture(body);
      fitted = Math.min(fitted, DspInterleave.copiesThatFit(captured, copies, free));
      DspInterleave.emit(a, captured, rows(), layout.lanes(), length, free, copies);
    } else {
      a.loop(rows(), body);
    }
  }

  private int rows() {
    return layout.inputRows();
  }

  private int in(int i) {
    return layout.inputBase(i);
  }

  private int out(int i) {
    return layout.outputBase(i);
  }

  private void elementWise(java.util.function.IntConsumer f) {
    rowPass(() -> {
      a.load(X, in(0));
      f.accept(X);
      a.store(out(0), Y);
    });
  }

  /** Reduction tree over the lanes into lane 0, then broadcast. */
  private void tree(DspOp op, int acc) {
    for (int width = layout.lanes(); width > 1; width /= 2) {
      a.emit(LSHIFT, S6, acc, 0, 0, false, 0, width / 2);
      a.op(op, acc, acc, S6);
    }
    a.op(BCAST, acc, acc, 0);
  }

  private void softmax() {
    a.li(S1, 0xFC00);
    a.loop(rows(), () -> a.load(X, in(0)).masked(MAX16, S1, S1, X));
    tree(MAX16, S1);
    a.li(S2, 0);
    if (options.interleave()) {
      rowPass(() -> {
        a.load(X, in(0)).op(SUB16, X, X, S1);
        fn.exp(Y, X);
        a.store(out(0), Y);
      });
      a.loop(rows(), () -> a.load(Y, out(0)).op(WIDEN, W, Y, 0).masked(ADD32, S2, S2, W));
    } else {
      a.loop(rows(), () -> {
        a.load(X, in(0)).op(SUB16, X, X, S1);
        fn.exp(Y, X);
        a.store(out(0), Y).op(WIDEN, W, Y, 0).masked(ADD32, S2, S2, W);
      });
    }
    tree(ADD32, S2);
    a.op(NARROW, S2, S2, ZERO);
    fn.reciprocal(S3, S2, TEMPS);
    rowPass(() -> a.load(X, out(0)).op(MUL16, Y, X, S3).store(out(0), Y));
  }

  /** S4 = −j and S5 = fn.rsqrt(fp16(v · 2^−2j)) of the FP32 statistic v in {@code stat} (Norms' scaled rsqrt). */
  private void scaledRsqrt(int stat) {
    a.aux(EXPO, FP32_EXPONENT, S4, stat, 0).op(IHALF, S4, S4, 0).op(ISUB, S4, ZERO, S4)
        .op(IADD, S6, S4, S4).op(NARROW, S6, stat, S6);
    fn.rsqrt(S5, S6, TEMPS);
  }

  private void rmsNorm() {
    a.li(S1, 0);
    if (options.fma32()) {
      a.loop(rows(), () -> a.load(X, in(0)).op(WIDEN, W, X, 0).fma32(S1, W, W, S1, true));
    } else if (squares != NO_REGISTER) {
      DspSumOfSquares.emitRotated(a, in(0), rows(), X, W, squares, S1);
    } else {
      a.loop(rows(), () -> a.load(X, in(0)).op(WIDEN, W, X, 0).op(MUL32, W, W, W).masked(ADD32, S1, S1, W));
    }
    tree(ADD32, S1);
    a.op(MUL32, S1, S1, INV_N).op(ADD32, S1, S1, EPS);
    scaledRsqrt(S1);
    rowPass(() -> a.load(X, in(0)).load(V, in(1)).op(SCALB16, Y, X, S4).op(MUL16, Y, Y, S5)
        .op(MUL16, Y, Y, V).store(out(0), Y));
  }

  private void layerNorm() {
    a.li(S1, 0);
    a.loop(rows(), () -> a.load(X, in(0)).op(WIDEN, W, X, 0).masked(ADD32, S1, S1, W));
    tree(ADD32, S1);
    a.op(MUL32, S1, S1, INV_N).li(S2, 0);
    a.loop(rows(), () -> a.load(X, in(0)).op(WIDEN, W, X, 0).op(SUB32, W, W, S1).op(MUL32, W, W, W)
        .masked(ADD32, S2, S2, W));
    tree(ADD32, S2);
    a.op(MUL32, S2, S2, INV_N).op(ADD32, S2, S2, EPS);
    scaledRsqrt(S2);
    rowPass(() -> a.load(X, in(0)).load(V, in(1)).load(W, in(2)).op(WIDEN, Y, X, 0).op(SUB32, Y, Y, S1)
        .op(NARROW, Y, Y, S4).op(MUL16, Y, Y, S5).op(MUL16, Y, Y, V).op(ADD16, Y, Y, W).store(out(0), Y));
  }

  private void gelu(int x) {
    a.op(MUL16, V, x, x).op(MUL16, V, V, x).fma(V, GELU_C3, V, x).op(MUL16, V, GELU_C2, V);
    fn.timesSigmoid(Y, x, V);
  }

  private void swiglu() {
    rowPass(() -> {
      a.load(X, in(0)).load(V, in(1));
      fn.timesSigmoid(W, X, X);
      a.op(MUL16, Y, W, V).store(out(0), Y);
    });
  }

  private void residual() {
    rowPass(() -> a.load(X, in(0)).load(V, in(1)).op(ADD16, Y, X, V).store(out(0), Y));
  }

  private void rope() {
    int c = TEMPS[0];
    int s = TEMPS[1];
    int p = TEMPS[2];
    int q = TEMPS[3];
    rowPass(() -> {
      a.load(X, in(0)).load(V, in(1)).load(c, in(2)).load(s, in(3))
          .op(WIDEN, X, X, 0).op(WIDEN, V, V, 0).op(WIDEN, c, c, 0).op(WIDEN, s, s, 0)
          .op(MUL32, p, X, c).op(MUL32, q, V, s).op(SUB32, Y, p, q).op(NARROW, Y, Y, ZERO).store(out(0), Y);
      if (options.fma32()) {
        a.op(MUL32, q, X, s).fma32(Y, V, c, q, false);
      } else {
        a.op(MUL32, p, V, c).op(MUL32, q, X, s).op(ADD32, Y, p, q);
      }
      a.op(NARROW, Y, Y, ZERO).store(out(1), Y);
    });
  }

  private void maxReduction() {
    a.li(S1, 0xFC00);
    a.loop(rows(), () -> a.load(X, in(0)).masked(MAX16, S1, S1, X));
    tree(MAX16, S1);
    a.store(out(0), S1);
  }

  private void sumReduction() {
    a.li(S1, 0);
    a.loop(rows(), () -> a.load(X, in(0)).op(WIDEN, W, X, 0).masked(ADD32, S1, S1, W));
    tree(ADD32, S1);
    a.op(NARROW, S1, S1, ZERO).store(out(0), S1);
  }
}
