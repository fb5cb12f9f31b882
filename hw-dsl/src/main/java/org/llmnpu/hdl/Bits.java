package org.llmnpu.hdl;

import org.llmnpu.hdl.ir.Expr;

/** Raw bits without arithmetic meaning; extends with zeros. */
public final class Bits extends BitVector<Bits> {
  public Bits(int width, Expr expr) {
    super(width, expr);
  }

  @Override
  public Kind kind() {
    return Kind.BITS;
  }

  @Override
  protected Bits make(Expr e) {
    return new Bits(e.width, e);
  }

  @Override
  public Bits copyType() {
    return new Bits(width(), null);
  }
}
