package org.llmnpu.hdl;

import java.math.BigInteger;
import org.llmnpu.hdl.ir.Expr;
import org.llmnpu.hdl.ir.Op.Code;

/**
 * Arithmetic shared by {@link UInt} and {@link SInt}. Width rules: {@code add}/{@code sub}
 * give the wider operand's width and wrap; {@code addExpand}/{@code subExpand} give one bit
 * more and never overflow; {@code mul} gives the sum of the widths; comparisons give a
 * {@link Bool}. A Java {@code long} operand becomes a constant of this value's width
 * (an error if it does not fit).
 *
 * @param <T> the concrete type returned by operators
 */
public abstract class Num<T extends Num<T>> extends BitVector<T> {
  protected Num(int width, Expr expr) {
    super(width, expr);
  }

  private int maxWidth(T other) {
    return Math.max(width(), other.width());
  }

  public T add(T other) {
    return make(Ops.sized(Code.ADD, maxWidth(other), kind(), expr(), other.expr()));
  }

  public T add(long value) {
    return add(constant(value, width()));
  }

  public T addExpand(T other) {
    return make(Ops.sized(Code.ADD, maxWidth(other) + 1, kind(), expr(), other.expr()));
  }

  public T sub(T other) {
    return make(Ops.sized(Code.SUB, maxWidth(other), kind(), expr(), other.expr()));
  }

  public T sub(long value) {
    return sub(constant(value, width()));
  }

  public T subExpand(T other) {
    return make(Ops.sized(Code.SUB, maxWidth(other) + 1, kind(), expr(), other.expr()));
  }

  /** Full product, width {@code wa + wb}. */
  public T mul(T other) {
    int w = width() + other.width();
    return make(new org.llmnpu.hdl.ir.Op(Code.MUL, w, kind(), java.util.List.of(expr(), other.expr())));
  }

  public Bool lt(T other) {
    return new Bool(Ops.compare(Code.LT, expr(), other.expr()));
  }

  public Bool lt(long value) {
    if (value == 0 && !kind().signed()) {
      return Hw.boolLit(false);
    }
    return lt(constantFor(value));
  }

  public Bool le(T other) {
    return new Bool(Ops.compare(Code.LE, expr(), other.expr()));
  }

  public Bool le(long value) {
    return le(constantFor(value));
  }

  public Bool gt(T other) {
    return new Bool(Ops.compare(Code.GT, expr(), other.expr()));
  }

  public Bool gt(long value) {
    return gt(constantFor(value));
  }

  public Bool ge(T other) {
    return new Bool(Ops.compare(Code.GE, expr(), other.expr()));
  }

  public Bool ge(long value) {
    if (value == 0 && !kind().signed()) {
      return Hw.boolLit(true);
    }
    return ge(constantFor(value));
  }

  public T min(T other) {
    return make(Ops.mux(lt(other).expr(), expr(), other.expr()));
  }

  public T max(T other) {
    return make(Ops.mux(gt(other).expr(), expr(), other.expr()));
  }

  /** Clamps to the range of an {@code n}-bit value of this type and returns it at width {@code n}. */
  public T saturate(int n) {
    if (n >= width()) {
      return resize(n);
    }
    BigInteger hi = kind().signed() ? BigInteger.ONE.shiftLeft(n - 1).subtract(BigInteger.ONE)
        : BigInteger.ONE.shiftLeft(n).subtract(BigInteger.ONE);
    T high = make(Ops.literal(kind(), width(), hi));
    T clamped = make(Ops.mux(gt(high).expr(), high.expr(), expr()));
    if (kind().signed()) {
      T low = make(Ops.literal(kind(), width(), hi.add(BigInteger.ONE).negate()));
      clamped = make(Ops.mux(lt(low).expr(), low.expr(), clamped.expr()));
    }
    return clamped.resize(n);
  }

  /** True when this value does not fit in {@code n} bits of this type. */
  public Bool overflows(int n) {
    if (n >= width()) {
      return new Bool(Ops.literal(Kind.BOOL, 1, BigInteger.ZERO));
    }
    return resize(n).resize(width()).ne(make(expr()));
  }
}
