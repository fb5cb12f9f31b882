package org.llmnpu.hdl;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.ir.Expr;
import org.llmnpu.hdl.ir.Op.Code;

/**
 * Operators shared by {@link Bits}, {@link UInt} and {@link SInt}. Width rules: bitwise
 * operators give the wider operand's width (the narrower is extended by its kind); slices
 * and resizes keep the type; shifts by a constant grow ({@code shiftLeft}) or shrink
 * ({@code shiftRight}) the width; shifts by a signal keep it.
 *
 * @param <T> the concrete type returned by operators
 */
public abstract class BitVector<T extends BitVector<T>> extends HwValue {
  protected BitVector(int width, Expr expr) {
    super(width, expr);
  }

  /** The same type wrapping another node. */
  protected abstract T make(Expr e);

  /** A constant of this type and width {@code width}. */
  protected T constant(long value, int width) {
    return make(Ops.literal(kind(), width, BigInteger.valueOf(value)));
  }

  /** A constant of this type at least as wide as this value, wide enough to hold {@code value}. */
  protected T constantFor(long value) {
    return constant(value, Math.max(width(), Ops.minWidth(kind(), BigInteger.valueOf(value))));
  }

  public T and(T other) {
    return make(Ops.sized(Code.AND, Math.max(width(), other.width()), kind(), expr(), other.expr()));
  }

  public T or(T other) {
    return make(Ops.sized(Code.OR, Math.max(width(), other.width()), kind(), expr(), other.expr()));
  }

  public T xor(T other) {
    return make(Ops.sized(Code.XOR, Math.max(width(), other.width()), kind(), expr(), other.expr()));
  }

  public T not() {
    return make(Ops.sized(Code.NOT, width(), kind(), expr()));
  }

  public Bool eq(T other) {
    return new Bool(Ops.compare(Code.EQ, expr(), other.expr()));
  }

  public Bool eq(long value) {
    return eq(constantFor(value));
  }

  public Bool ne(T other) {
    return new Bool(Ops.compare(Code.NE, expr(), other.expr()));
  }

  public Bool ne(long value) {
    return ne(constantFor(value));
  }

  /** Bit {@code i} (0 = LSB). */
  public Bool bit(int i) {
    return new Bool(Ops.slice(expr(), i, i, Kind.BOOL));
  }

  /** Bits {@code high..low} as raw {@link Bits}, width {@code high - low + 1}. */
  public Bits bits(int high, int low) {
    return new Bits(high - low + 1, Ops.slice(expr(), high, low, Kind.BITS));
  }

  /** Bits {@code high..low} as this type, width {@code high - low + 1}. */
  public T slice(int high, int low) {
    return make(Ops.slice(expr(), high, low, kind()));
  }

  /** The {@code n} least significant bits. */
  public T lsbs(int n) {
    return slice(n - 1, 0);
  }

  /** The {@code n} most significant bits. */
  public T msbs(int n) {
    return slice(width() - 1, width() - n);
  }

  /** Truncates (keeping the LSBs) or extends (zero for Bits/UInt, sign for SInt) to {@code n} bits. */
  public T resize(int n) {
    return make(Ops.resize(expr(), n));
  }

  /** {@code this << n} with width {@code w + n} (no bits lost). */
  public T shiftLeft(int n) {
    if (n == 0) {
      return make(expr());
    }
    Expr zeros = Ops.literal(Kind.BITS, n, BigInteger.ZERO);
    return make(Ops.cast(Ops.cat(List.of(expr(), zeros)), kind()));
  }

  /** {@code this >> n} with width {@code w - n}: drops the {@code n} LSBs (arithmetic for SInt). */
  public T shiftRight(int n) {
    if (n >= width()) {
      throw new ElaborationException(SourceLocation.here(),
          "shiftRight(" + n + ") of a " + width() + "-bit value leaves no bits; use resize");
    }
    return msbs(width() - n);
  }

  /** {@code this << amount}, width unchanged (bits shifted out are lost). */
  public T shiftLeft(UInt amount) {
    return make(new org.llmnpu.hdl.ir.Op(Code.SHL_DYN, width(), kind(), List.of(expr(), amount.expr())));
  }

  /** {@code this >> amount}, width unchanged; arithmetic for SInt, logical otherwise. */
  public T shiftRight(UInt amount) {
    return make(new org.llmnpu.hdl.ir.Op(Code.SHR_DYN, width(), kind(), List.of(expr(), amount.expr())));
  }

  /** AND of all bits. */
  public Bool andR() {
    return new Bool(new org.llmnpu.hdl.ir.Op(Code.AND_R, 1, Kind.BOOL, List.of(expr())));
  }

  /** OR of all bits. */
  public Bool orR() {
    return new Bool(new org.llmnpu.hdl.ir.Op(Code.OR_R, 1, Kind.BOOL, List.of(expr())));
  }

  /** XOR of all bits (parity). */
  public Bool xorR() {
    return new Bool(new org.llmnpu.hdl.ir.Op(Code.XOR_R, 1, Kind.BOOL, List.of(expr())));
  }

  /** {@code {this, others...}}: this value is the most significant part; width is the sum. */
  public Bits cat(HwValue... others) {
    List<Expr> parts = new ArrayList<>();
    parts.add(expr());
    for (HwValue o : others) {
      parts.add(o.expr());
    }
    return new Bits(parts.stream().mapToInt(p -> p.width).sum(), Ops.cat(parts));
  }

  /** The same bits as raw {@link Bits}. */
  public Bits asBits() {
    return new Bits(width(), Ops.cast(expr(), Kind.BITS));
  }

  /** The same bits read as unsigned. */
  public UInt asUInt() {
    return new UInt(width(), Ops.cast(expr(), Kind.UINT));
  }

  /** The same bits read as two's complement. */
  public SInt asSInt() {
    return new SInt(width(), Ops.cast(expr(), Kind.SINT));
  }
}
