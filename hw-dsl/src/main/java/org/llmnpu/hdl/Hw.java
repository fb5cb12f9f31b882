package org.llmnpu.hdl;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.ir.Expr;

/** Types, constants and combinational helpers; use with {@code import static org.llmnpu.hdl.Hw.*}. */
public final class Hw {
  private Hw() {
  }

  public static Bool bool() {
    return new Bool(null);
  }

  public static Bits bits(int width) {
    return new Bits(width, null);
  }

  public static UInt uint(int width) {
    return new UInt(width, null);
  }

  public static SInt sint(int width) {
    return new SInt(width, null);
  }

  public static Bool boolLit(boolean value) {
    return new Bool(Ops.literal(Kind.BOOL, 1, value ? BigInteger.ONE : BigInteger.ZERO));
  }

  public static UInt uintLit(long value, int width) {
    return new UInt(width, Ops.literal(Kind.UINT, width, BigInteger.valueOf(value)));
  }

  public static UInt uintLit(BigInteger value, int width) {
    return new UInt(width, Ops.literal(Kind.UINT, width, value));
  }

  public static SInt sintLit(long value, int width) {
    return new SInt(width, Ops.literal(Kind.SINT, width, BigInteger.valueOf(value)));
  }

  public static Bits bitsLit(long value, int width) {
    return new Bits(width, Ops.literal(Kind.BITS, width, BigInteger.valueOf(value)));
  }

  /** {@code cond ? whenTrue : whenFalse}; both the same kind; width is the wider of the two. */
  @SuppressWarnings("unchecked")
  public static <T extends HwValue> T mux(Bool cond, T whenTrue, T whenFalse) {
    return (T) Ops.wrap(Ops.mux(cond.expr(), whenTrue.expr(), whenFalse.expr()));
  }

  /** Concatenation, first argument most significant; width is the sum. */
  public static Bits cat(HwValue... parts) {
    List<Expr> exprs = new ArrayList<>();
    for (HwValue p : parts) {
      exprs.add(p.expr());
    }
    return new Bits(exprs.stream().mapToInt(e -> e.width).sum(), Ops.cat(exprs));
  }

  /** Concatenation of a list, element 0 least significant (as a Vec packs). */
  public static Bits catLsbFirst(List<? extends HwValue> parts) {
    List<Expr> exprs = new ArrayList<>();
    for (int i = parts.size() - 1; i >= 0; i--) {
      exprs.add(parts.get(i).expr());
    }
    return new Bits(exprs.stream().mapToInt(e -> e.width).sum(), Ops.cat(exprs));
  }

  /**
   * Index of the lowest set bit of {@code requests} (width {@code max(1, ceil(log2(w)))});
   * 0 when none is set — check {@code requests.orR()} for validity.
   */
  public static UInt priorityEncoder(Bits requests) {
    int w = requests.width();
    int outWidth = Math.max(1, log2Ceil(w));
    UInt result = uintLit(0, outWidth);
    for (int i = w - 1; i >= 0; i--) {
      result = mux(requests.bit(i), uintLit(i, outWidth), result);
    }
    return result;
  }

  /** Selects {@code values[i]} for the lowest {@code i} with {@code conditions[i]} set, else {@code otherwise}. */
  public static <T extends HwValue> T priorityMux(List<Bool> conditions, List<T> values, T otherwise) {
    if (conditions.size() != values.size()) {
      throw new ElaborationException(SourceLocation.here(),
          "priorityMux: " + conditions.size() + " conditions but " + values.size() + " values");
    }
    T result = otherwise;
    for (int i = conditions.size() - 1; i >= 0; i--) {
      result = mux(conditions.get(i), values.get(i), result);
    }
    return result;
  }

  /** {@code ceil(log2(n))}, 0 for n <= 1. */
  public static int log2Ceil(long n) {
    return Ops.log2Ceil(n);
  }

  /** Bits needed to count 0..n inclusive. */
  public static int bitsToHold(long n) {
    return Math.max(1, 64 - Long.numberOfLeadingZeros(n));
  }

  public static boolean isPowerOfTwo(long n) {
    return n > 0 && (n & (n - 1)) == 0;
  }
}
