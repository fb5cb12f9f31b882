package org.llmnpu.hdl.ir;

import java.util.List;
import org.llmnpu.hdl.Kind;

/**
 * An operator applied to operands. Operands of arithmetic and bitwise operators have
 * already been extended to the result width by the front end, so every operator here is
 * exactly sized; {@code param} carries slice bounds and constant shift amounts.
 */
public final class Op extends Expr {
  /** Operators; the emitter's table maps each to Verilog. */
  public enum Code {
    ADD, SUB, MUL, AND, OR, XOR, NOT, NEG,
    EQ, NE, LT, LE, GT, GE,
    AND_R, OR_R, XOR_R,
    SHL_DYN, SHR_DYN,
    CAT, SLICE, EXTEND, MUX, AS_UINT, AS_SINT, AS_BITS
  }

  public final Code code;
  public final List<Expr> args;
  /** For SLICE: the low bit (the high bit is low + width - 1). */
  public final int param;

  public Op(Code code, int width, Kind kind, List<Expr> args, int param) {
    super(width, kind);
    this.code = code;
    this.args = List.copyOf(args);
    this.param = param;
  }

  public Op(Code code, int width, Kind kind, List<Expr> args) {
    this(code, width, kind, args, 0);
  }
}
