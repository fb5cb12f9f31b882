package org.llmnpu.hdl;

import org.llmnpu.hdl.ir.Expr;

/** An unsigned integer of {@code width} bits; extends with zeros. */
public final class UInt extends Num<UInt> {
  public UInt(int width, Expr expr) {
    super(width, expr);
  }

  @Override
  public Kind kind() {
    return Kind.UINT;
  }

  @Override
  protected UInt make(Expr e) {
    return new UInt(e.width, e);
  }

  @Override
  public UInt copyType() {
    return new UInt(width(), null);
  }

  /** The same value as a signed integer one bit wider. */
  public SInt toSInt() {
    return resize(width() + 1).asSInt();
  }

  /** Value-preserving extension with width {@code n}; error if narrower. */
  public UInt expandTo(int n) {
    if (n < width()) {
      throw new ElaborationException(SourceLocation.here(), "expandTo(" + n + ") narrows " + this);
    }
    return resize(n);
  }

}
