package org.llmnpu.hdl;

import java.util.List;
import org.llmnpu.hdl.ir.Expr;
import org.llmnpu.hdl.ir.Op;
import org.llmnpu.hdl.ir.Op.Code;

/** A single bit used as a condition. */
public final class Bool extends HwValue {
  public Bool(Expr expr) {
    super(1, expr);
  }

  @Override
  public Kind kind() {
    return Kind.BOOL;
  }

  @Override
  public Bool copyType() {
    return new Bool(null);
  }

  /** {@code this := value} for a Java boolean ({@code valid.set(false)}). */
  public void set(boolean value) {
    set(value ? 1 : 0);
  }

  public Bool and(Bool other) {
    return new Bool(new Op(Code.AND, 1, Kind.BOOL, List.of(expr(), other.expr())));
  }

  public Bool or(Bool other) {
    return new Bool(new Op(Code.OR, 1, Kind.BOOL, List.of(expr(), other.expr())));
  }

  public Bool xor(Bool other) {
    return new Bool(new Op(Code.XOR, 1, Kind.BOOL, List.of(expr(), other.expr())));
  }

  public Bool not() {
    return new Bool(new Op(Code.NOT, 1, Kind.BOOL, List.of(expr())));
  }

  public Bool eq(Bool other) {
    return new Bool(Ops.compare(Code.EQ, expr(), other.expr()));
  }

  public Bool ne(Bool other) {
    return new Bool(Ops.compare(Code.NE, expr(), other.expr()));
  }

  /** 1-bit unsigned: 1 when true. */
  public UInt asUInt() {
    return new UInt(1, Ops.cast(expr(), Kind.UINT));
  }

  public Bits asBits() {
    return new Bits(1, Ops.cast(expr(), Kind.BITS));
  }
}
