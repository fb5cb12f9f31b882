package org.llmnpu.hdl.ir;

import java.math.BigInteger;
import org.llmnpu.hdl.Kind;

/** A constant; {@code bits} holds the two's-complement pattern, {@code 0 <= bits < 2^width}. */
public final class Literal extends Expr {
  public final BigInteger bits;

  public Literal(int width, Kind kind, BigInteger bits) {
    super(width, kind);
    this.bits = bits;
  }
}
