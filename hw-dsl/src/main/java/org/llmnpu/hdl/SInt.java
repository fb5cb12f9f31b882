package org.llmnpu.hdl;

import org.llmnpu.hdl.ir.Expr;
import org.llmnpu.hdl.ir.Op.Code;

/** A two's-complement signed integer of {@code width} bits; extends with the sign bit. */
public final class SInt extends Num<SInt> {
  public SInt(int width, Expr expr) {
    super(width, expr);
  }

  @Override
  public Kind kind() {
    return Kind.SINT;
  }

  @Override
  protected SInt make(Expr e) {
    return new SInt(e.width, e);
  }

  @Override
  public SInt copyType() {
    return new SInt(width(), null);
  }

  /** {@code -this}, same width (wraps for the most negative value). */
  public SInt neg() {
    return make(Ops.sized(Code.NEG, width(), kind(), expr()));
  }

  /** The sign bit. */
  public Bool isNegative() {
    return bit(width() - 1);
  }
}
