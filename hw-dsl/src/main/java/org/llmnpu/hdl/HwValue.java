package org.llmnpu.hdl;

import java.util.List;
import org.llmnpu.hdl.ir.Expr;
import org.llmnpu.hdl.ir.Signal;

/**
 * One hardware value of a fixed width: a {@link Bool}, {@link Bits}, {@link UInt} or
 * {@link SInt}. It is either an unbound type (from {@code uint(8)}), a signal (port, wire,
 * register) or an expression over signals.
 */
public abstract class HwValue extends Data {
  private final int width;
  private Expr expr;

  protected HwValue(int width, Expr expr) {
    if (width < 1) {
      throw new ElaborationException(SourceLocation.here(), "width must be >= 1, got " + width);
    }
    this.width = width;
    this.expr = expr;
  }

  public final int width() {
    return width;
  }

  public abstract Kind kind();

  /** The expression node; an error if this value is only a type. */
  public final Expr expr() {
    if (expr == null) {
      throw new ElaborationException(SourceLocation.here(), kind().display() + "(" + width
          + ") is a type, not hardware: declare it with in/out/wire/reg first");
    }
    return expr;
  }

  public final boolean isBound() {
    return expr != null;
  }

  final void bind(Expr e) {
    if (expr != null) {
      throw new ElaborationException(SourceLocation.here(),
          "this " + kind().display() + " is already hardware; pass a type such as uint(8) or use copyType()");
    }
    expr = e;
  }

  /** The signal node, if this value is a port, wire or register. */
  public final Signal signal() {
    if (expr() instanceof Signal s) {
      return s;
    }
    throw new ElaborationException(SourceLocation.here(),
        "only ports, wires and registers can be assigned; this is an expression");
  }

  /** {@code this := value}; a narrower value is extended (zero or sign), a wider one is an error. */
  public final void set(HwValue value) {
    Assignments.assign(this, value);
  }

  /**
   * {@code this := value} for a Java integer ({@code w.set(0)}): a constant of this signal's
   * kind and width; an elaboration error if it does not fit (e.g. -1 into a UInt, 256 into 8 bits).
   */
  public final void set(long value) {
    Assignments.assign(this, Ops.wrap(Ops.literal(kind(), width(), java.math.BigInteger.valueOf(value))));
  }

  @Override
  public final List<HwValue> leaves() {
    return List.of(this);
  }

  @Override
  public String toString() {
    String n = expr instanceof Signal s ? " " + s.displayName() : "";
    return kind().display() + "(" + width + ")" + n;
  }
}
