package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.llmnpu.isa.dsp.DspAssembler;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspInterleave;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * The program of {@link DspRoutines#quantize}: dynamic symmetric INT8 quantization of one to three FP16
 * vectors in one DSP run. Per vector (optionally times a vector first): {@code d = max(absmax, 2^-8)/127}
 * (FP16), {@code q = saturate(rint(x · 127/absmax))}, the reciprocal by four Newton steps
 * {@code y ← y·fp16(2 − a·y)} (FMA16, MUL16) from {@code 0.75·2^-floor(log2 absmax)} (relative error
 * below 2^-16 before FP16 rounding); the INT8 codes (low byte of each element) to its output rows and
 * {@code d} broadcast over one row.
 *
 * <p>Schedule, for a pipelined DSP: each vector's absmax pass (a loop, or straight-line code for one row,
 * whose {@code x} is then kept for the codes); the vectors' scalar chains (reduction tree, reciprocal)
 * merged instruction by instruction, so that each dependent instruction is as many issue slots after its
 * producer as there are vectors, the constants ({@code LI}) issued in the tree's interlock shadow; the
 * codes pass rows interleaved ({@link DspRoutines#rowPass}). Every vector sees the instructions of a
 * quantization on its own, in the same order: results are those of separate runs.
 */
final class DspQuantizer {
  /**
   * One vector: {@code len} elements at row {@code in} (times {@code vec} when ≥ 0), codes to {@code out}, d to
   * {@code scaleRow}; or, with {@code product}, elements computed in the absmax pass ({@link Product}) and stored to
   * {@code in} for the codes pass ({@code vec} then −1).
   */
  record Vector(int in, int len, int vec, int out, int scaleRow, Product product) {
    /** A vector loaded from {@code in}. */
    Vector(int in, int len, int vec, int out, int scaleRow) {
      this(in, len, vec, out, scaleRow, null);
    }

    Vector {
      if (product != null && vec >= 0) {
        throw new IllegalArgumentException("a product vector takes no vec operand, got vec " + vec);
      }
    }
  }

  /**
   * The SwiGLU product the absmax pass computes instead of loading ({@code --fusion vertical|full}'s hidden vector,
   * {@link FeedForwardLowering}): {@code x = (gate · c) · ((acc · s) · v)}, each product rounded to FP16, with the
   * gate's SiLU codes at row {@code gate}, the FP16 constant {@code c}, up's dequantized INT32 results at row
   * {@code acc}, the token's broadcast input-scale row {@code s} and W3's channel scales at row {@code v}: the values the
   * separate runs {@code scale(acc, s, v)} (up), {@code scale(gate, c)} (SiLU) and the quantization's {@code sw · up}
   * give, in their order (FP16 products commute exactly). The absmax pass stores x to the vector's {@code in} rows and
   * the codes pass reads it back: per row 10 instructions and 3 instead of the separate runs' 5, 3, 5 and 5.
   */
  record Product(int gate, short c, int acc, int scaleRow, int vec) {
  }

  static final int MAX_VECTORS = 3;
  private static final int ZERO = 0;
  private static final int TWO = 1;
  private static final int C127 = 2;
  private static final int INV127 = 3;
  private static final int GUARD_REG = 4;
  private static final int C075 = 5;
  private static final int PER_VECTOR = 7;

  private final DspRoutines routines;
  private final int lanes;
  private final DspAssembler a = new DspAssembler();
  private int length = -1;

  DspQuantizer(DspRoutines routines, int lanes) {
    this.routines = routines;
    this.lanes = lanes;
  }

  // the registers of vector j
  private static int acc(int j) {
    return 6 + PER_VECTOR * j;
  }

  private static int x(int j) {
    return acc(j) + 1;
  }

  private static int t(int j) {
    return acc(j) + 2;
  }

  private static int d(int j) {
    return acc(j) + 3;
  }

  private static int e(int j) {
    return acc(j) + 4;
  }

  private static int y(int j) {
    return acc(j) + 5;
  }

  private static int neg(int j) {
    return acc(j) + 6;
  }

  private void setLength(int len) {
    if (len != length) {
      a.setLength(len);
      length = len;
    }
  }

  DspProgram program(List<Vector> vectors) {
    int n = vectors.size();
    if (n < 1 || n > MAX_VECTORS) {
      throw new IllegalArgumentException("quantize takes 1.." + MAX_VECTORS + " vectors, got " + n);
    }
    int stages = routines.executeStages();
    boolean sameLength = vectors.stream().allMatch(v -> v.len() == vectors.get(0).len());
    boolean products = vectors.stream().anyMatch(v -> v.product() != null);
    if (products && !(sameLength && vectors.stream().allMatch(v -> v.product() != null))) {
      throw new IllegalArgumentException("product vectors are quantized only with product vectors of one length: "
          + vectors);
    }
    if (products) {
      absmaxOfProducts(vectors);
    } else if (n > 1 && sameLength) {
      absmaxTogether(vectors);
    }
    for (int j = 0; j < n && !(n > 1 && sameLength) && !products; j++) {
      Vector v = vectors.get(j);
      int x = x(j);
      int t = t(j);
      int acc = acc(j);
      a.li(acc, 0);
      setLength(v.len());
      int rows = routines.rows(v.len());
      routines.rowPass(a, rows, v.len(), List.of(), false, () -> {
        a.load(x, v.in());
        if (v.vec() >= 0) {
          a.load(t, v.vec()).op(DspOp.MUL16, x, x, t);
        }
        a.op(DspOp.ABS, t, x, 0).masked(DspOp.MAX16, acc, acc, t);
      });
    }
    // the constants wait in the interlock's shadow of the reduction tree (they are not FP results)
    List<int[]> constants = new ArrayList<>();
    for (int k = 0; k < DspQuantChain.CONSTANTS.length; k++) {
      constants.add(new int[] {ZERO + k, DspQuantChain.CONSTANTS[k]});
    }
    int shadow = Math.max(0, stages - n);
    fill(constants, shadow);
    List<List<DspInstruction>> chains = new ArrayList<>();
    for (int j = 0; j < n; j++) {
      chains.add(chain(j));
    }
    int treeLength = 2 * Integer.numberOfTrailingZeros(lanes);
    if (treeLength == 0) {
      fill(constants, constants.size());
    }
    for (int i = 0; i < chains.get(0).size(); i++) {
      for (List<DspInstruction> c : chains) {
        a.emitAll(List.of(c.get(i)));
      }
      if (i < treeLength && i % 2 == 1) {
        fill(constants, i == treeLength - 1 ? constants.size() : shadow);
      }
    }
    if (n > 1 && sameLength && routines.rows(vectors.get(0).len()) == 1) {
      // one-row vectors of one length: every TOINT, then every store (none waits for its TOINT in the pipeline)
      setLength(vectors.get(0).len());
      for (int j = 0; j < n; j++) {
        a.aux(DspOp.TOINT, 0, x(j), x(j), y(j));
      }
      for (int j = 0; j < n; j++) {
        a.store(vectors.get(j).out(), x(j));
      }
    }
    for (int j = 0; j < n && !(n > 1 && sameLength); j++) {
      Vector v = vectors.get(j);
      if (routines.rows(v.len()) == 1) {
        setLength(v.len());
        a.aux(DspOp.TOINT, 0, x(j), x(j), y(j)).store(v.out(), x(j));
      }
    }
    boolean together = jointCodes(vectors);
    if (together) {
      codesTogether(vectors);
    }
    for (int j = 0; j < n && !together; j++) {
      Vector v = vectors.get(j);
      int rows = routines.rows(v.len());
      if (rows > 1) {
        int x = x(j);
        int t = t(j);
        int inv = y(j);
        setLength(v.len());
        routines.rowPass(a, rows, v.len(), free(n, j), true, () -> {
          a.load(x, v.in());
          if (v.vec() >= 0) {
            a.load(t, v.vec()).op(DspOp.MUL16, x, x, t);
          }
          a.aux(DspOp.TOINT, 0, x, x, inv).store(v.out(), x);
        });
      }
    }
    // the scale rows at full lanes, said even when the vectors' length is the lanes: then every length's program has
    // the same form (DspRunForms), and one resident program serves every query's probabilities
    a.setLength(lanes);
    length = lanes;
    for (int j = 0; j < n; j++) {
      a.store(vectors.get(j).scaleRow(), d(j));
    }
    StringBuilder name = new StringBuilder("quantize");
    for (Vector v : vectors) {
      name.append(' ').append(v.len()).append(" @").append(v.in()).append(v.vec() >= 0 ? "*" + v.vec() : "")
          .append("->").append(v.out()).append('/').append(v.scaleRow());
    }
    return a.finish(name.toString());
  }

  /**
   * The absmax passes of vectors of one length as one pass (a loop over the rows, straight-line code for one row)
   * whose body holds every vector's instructions for the row, the vectors alternating instruction by instruction: each
   * vector's maximum is taken over its rows in the same order as in its own pass (the same values), and the vectors'
   * dependent instructions hide each other's latency. One row's products stay in the vectors' x registers for the codes.
   */
  private void absmaxTogether(List<Vector> vectors) {
    int n = vectors.size();
    int len = vectors.get(0).len();
    for (int j = 0; j < n; j++) {
      a.li(acc(j), 0);
    }
    setLength(len);
    routines.rowPass(a, routines.rows(len), len, List.of(), false, () -> {
      productsTogether(vectors);
      for (int j = 0; j < n; j++) {
        a.op(DspOp.ABS, t(j), x(j), 0);
      }
      for (int j = 0; j < n; j++) {
        a.masked(DspOp.MAX16, acc(j), acc(j), t(j));
      }
    });
  }

  /**
   * The absmax pass of product vectors of one length ({@link Product}): a pass over the rows (straight-line code for
   * one row) whose body computes every vector's x, stores it to the vector's {@code in} row and folds |x| into its
   * maximum, the vectors alternating step by step, W3's channel scales loaded once a row where the vectors share them;
   * on a pipelined DSP rows interleaved as the row passes are ({@link DspInterleave}), so that the chain of three
   * dependent products waits less. One row's x stays in the x registers for the codes.
   */
  private void absmaxOfProducts(List<Vector> vectors) {
    int n = vectors.size();
    int len = vectors.get(0).len();
    int rows = routines.rows(len);
    boolean sharedVec = vectors.stream().allMatch(v -> v.product().vec() == vectors.get(0).product().vec());
    for (int j = 0; j < n; j++) {
      Product p = vectors.get(j).product();
      a.li(acc(j), 0).li(neg(j), p.c() & 0xFFFF).load(d(j), p.scaleRow());
    }
    setLength(len);
    Runnable body = () -> productRow(vectors, sharedVec);
    List<DspInstruction> code = a.capture(body);
    List<Integer> free = new ArrayList<>();
    for (int r = acc(n); r < DspInstruction.REGISTERS; r++) {
      free.add(r);
    }
    // rows interleaved on a pipelined DSP, each copy with its own maxima (max is exact in any order): started at 0 and
    // folded into the vectors' after the pass
    int copies = rows > 1 && routines.executeStages() > 1
        ? DspInterleave.copiesThatFit(code, routines.interleaveRows(), free) : 1;
    for (int k = 1; k < copies; k++) {
      for (int j = 0; j < n; j++) {
        a.li(DspInterleave.renamed(code, free, k, acc(j)), 0);
      }
    }
    routines.rowPass(a, rows, len, free, copies, body);
    for (int k = 1; k < copies; k++) {
      for (int j = 0; j < n; j++) {
        a.op(DspOp.MAX16, acc(j), acc(j), DspInterleave.renamed(code, free, k, acc(j)));
      }
    }
  }

  /** One row of {@link #absmaxOfProducts}: every vector's x, stored, and |x| folded into its maximum. */
  private void productRow(List<Vector> vectors, boolean sharedVec) {
    int n = vectors.size();
    java.util.function.Consumer<java.util.function.IntConsumer> each = step -> IntStream.range(0, n).forEach(step);
    each.accept(j -> a.load(x(j), vectors.get(j).product().acc()));
    IntStream.range(0, sharedVec ? 1 : n).forEach(j -> a.load(t(j), vectors.get(j).product().vec()));
    each.accept(j -> a.load(e(j), vectors.get(j).product().gate()));
    each.accept(j -> a.op(DspOp.MUL16, x(j), x(j), d(j)));
    each.accept(j -> a.op(DspOp.MUL16, e(j), e(j), neg(j)));
    each.accept(j -> a.op(DspOp.MUL16, x(j), x(j), t(sharedVec ? 0 : j)));
    each.accept(j -> a.op(DspOp.MUL16, x(j), e(j), x(j)));
    each.accept(j -> a.store(vectors.get(j).in(), x(j)));
    each.accept(j -> a.op(DspOp.ABS, t(j), x(j), 0));
    each.accept(j -> a.masked(DspOp.MAX16, acc(j), acc(j), t(j)));
  }

  /** A row body's start for vectors together: each vector's x (times its vector operand) in its x register. */
  private void productsTogether(List<Vector> vectors) {
    int n = vectors.size();
    for (int j = 0; j < n; j++) {
      a.load(x(j), vectors.get(j).in());
    }
    for (int j = 0; j < n; j++) {
      if (vectors.get(j).vec() >= 0) {
        a.load(t(j), vectors.get(j).vec());
      }
    }
    for (int j = 0; j < n; j++) {
      if (vectors.get(j).vec() >= 0) {
        a.op(DspOp.MUL16, x(j), x(j), t(j));
      }
    }
  }

  /**
   * Whether the vectors' codes passes go as one ({@link #codesTogether}): two or more vectors of one length over more
   * than one row (two tokens' SwiGLU products, a head group's probabilities over several rows).
   */
  private boolean jointCodes(List<Vector> vectors) {
    int len = vectors.get(0).len();
    return vectors.size() > 1 && routines.rows(len) > 1 && vectors.stream().allMatch(v -> v.len() == len);
  }

  /**
   * The codes passes of vectors of one length as one pass whose row body holds every vector's instructions for that
   * row, the vectors alternating instruction by instruction (their chains hide each other's latency), interleaved
   * {@code ceil(K / vectors)} rows deep (K the DSP's interleave depth) instead of K rows deep a vector: each element
   * sees the instructions of its own pass in the same order, in about half the program words (so that two tokens'
   * SwiGLU scales and this quantization join in the 256-word program memory).
   */
  private void codesTogether(List<Vector> vectors) {
    int n = vectors.size();
    int len = vectors.get(0).len();
    List<Integer> free = new ArrayList<>();
    for (int r = 0; r < DspInstruction.REGISTERS; r++) {
      if (r > C075 && r >= acc(n)) {
        free.add(r);
      }
    }
    setLength(len);
    int depth = Math.max(2, (routines.interleaveRows() + n - 1) / n);
    routines.rowPass(a, routines.rows(len), len, free, depth, () -> {
      productsTogether(vectors);
      for (int j = 0; j < n; j++) {
        a.aux(DspOp.TOINT, 0, x(j), x(j), y(j));
      }
      for (int j = 0; j < n; j++) {
        a.store(vectors.get(j).out(), x(j));
      }
    });
  }

  /**
   * Vector j's scalar chain: the reduction tree, the broadcast and guard, d, the start value, the Newton
   * steps and 127/absmax (in y).
   */
  private List<DspInstruction> chain(int j) {
    return a.capture(() -> DspQuantChain.emit(a, lanes, new DspQuantChain.Registers(acc(j), t(j), e(j), neg(j), d(j),
        y(j), ZERO, TWO, C127, INV127, GUARD_REG, C075)));
  }

  /** Registers free in vector j's codes pass: neither constants, nor any vector's d and 127/absmax, nor j's x and t. */
  private static List<Integer> free(int n, int j) {
    List<Integer> free = new ArrayList<>();
    for (int r = 0; r < DspInstruction.REGISTERS; r++) {
      boolean used = r <= C075 || r == x(j) || r == t(j);
      for (int k = 0; k < n; k++) {
        used |= r == d(k) || r == y(k);
      }
      if (!used) {
        free.add(r);
      }
    }
    return free;
  }

  /** Emits up to {@code count} of the pending constants ({@code LI}), first first. */
  private void fill(List<int[]> constants, int count) {
    for (int i = 0; i < count && !constants.isEmpty(); i++) {
      int[] c = constants.remove(0);
      a.li(c[0], c[1]);
    }
  }
}
