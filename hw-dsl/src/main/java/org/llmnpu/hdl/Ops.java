package org.llmnpu.hdl;

import java.math.BigInteger;
import java.util.List;
import org.llmnpu.hdl.ir.Expr;
import org.llmnpu.hdl.ir.Literal;
import org.llmnpu.hdl.ir.Op;
import org.llmnpu.hdl.ir.Op.Code;

/** Builds exactly-sized expression nodes; the width rules of hw-dsl/README.md live here. */
final class Ops {
  private Ops() {
  }

  static HwValue wrap(Expr e) {
    return switch (e.kind) {
      case BOOL -> new Bool(e);
      case BITS -> new Bits(e.width, e);
      case UINT -> new UInt(e.width, e);
      case SINT -> new SInt(e.width, e);
    };
  }

  /** A literal of the given kind and width; an error if {@code value} does not fit. */
  static Literal literal(Kind kind, int width, BigInteger value) {
    BigInteger min = kind.signed() ? BigInteger.ONE.shiftLeft(width - 1).negate() : BigInteger.ZERO;
    BigInteger max = kind.signed() ? BigInteger.ONE.shiftLeft(width - 1).subtract(BigInteger.ONE)
        : BigInteger.ONE.shiftLeft(width).subtract(BigInteger.ONE);
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw new ElaborationException(SourceLocation.here(), String.format(
          "constant %s does not fit in %s(%d) (range %s..%s)", value, kind.display(), width, min, max));
    }
    BigInteger bits = value.signum() < 0 ? value.add(BigInteger.ONE.shiftLeft(width)) : value;
    return new Literal(width, kind, bits);
  }

  /** Minimal width holding {@code value} as the given kind. */
  static int minWidth(Kind kind, BigInteger value) {
    if (kind.signed()) {
      return value.bitLength() + 1;
    }
    if (value.signum() < 0) {
      throw new ElaborationException(SourceLocation.here(),
          "negative constant " + value + " for an unsigned " + kind.display());
    }
    return Math.max(1, value.bitLength());
  }

  static Expr extend(Expr e, int width) {
    if (e.width == width) {
      return e;
    }
    if (e.width > width) {
      throw new IllegalStateException("extend narrows " + e.width + " to " + width);
    }
    return new Op(Code.EXTEND, width, e.kind, List.of(e));
  }

  static Expr slice(Expr e, int high, int low, Kind kind) {
    if (low < 0 || high >= e.width || high < low) {
      throw new ElaborationException(SourceLocation.here(), String.format(
          "slice [%d:%d] out of range of a %d-bit value (bits %d..0)", high, low, e.width, e.width - 1));
    }
    if (low == 0 && high == e.width - 1) {
      return cast(e, kind);
    }
    int w = high - low + 1;
    if (e instanceof Literal l) {
      return new Literal(w, kind, l.bits.shiftRight(low).and(BigInteger.ONE.shiftLeft(w).subtract(BigInteger.ONE)));
    }
    if (e instanceof Op op) {
      Expr pushed = sliceThrough(op, high, low, kind);
      if (pushed != null) {
        return pushed;
      }
    }
    return new Op(Code.SLICE, w, kind, List.of(e), low);
  }

  /**
   * Slices an operator's result by slicing its operands where that gives the same bits, so
   * no partially used temporary is needed: casts and slices compose, an extension's low
   * bits are its operand's, and the low n bits of add/sub/mul/bitwise/mux/shift-left
   * depend only on the low n bits of their operands.
   */
  private static Expr sliceThrough(Op op, int high, int low, Kind kind) {
    Expr a0 = op.args.get(0);
    switch (op.code) {
      case AS_UINT, AS_SINT, AS_BITS:
        return slice(a0, high, low, kind);
      case SLICE:
        return slice(a0, high + op.param, low + op.param, kind);
      case EXTEND:
        return high < a0.width ? slice(a0, high, low, kind) : null;
      case CAT: {
        int top = op.width;
        for (Expr part : op.args) {
          int partLow = top - part.width;
          if (low >= partLow && high < top) {
            return slice(part, high - partLow, low - partLow, kind);
          }
          top = partLow;
        }
        return null;
      }
      case ADD, SUB, MUL, AND, OR, XOR, NOT, NEG, SHL_DYN: {
        if (low != 0) {
          return null;
        }
        int n = high + 1;
        List<Expr> args = new java.util.ArrayList<>();
        for (int i = 0; i < op.args.size(); i++) {
          Expr a = op.args.get(i);
          args.add(op.code == Code.SHL_DYN && i == 1 ? a : resize(a, n));
        }
        return cast(new Op(op.code, n, op.kind, args), kind);
      }
      case MUX: {
        if (low != 0) {
          return null;
        }
        int n = high + 1;
        return cast(new Op(Code.MUX, n, op.kind, List.of(a0, resize(op.args.get(1), n),
            resize(op.args.get(2), n))), kind);
      }
      default:
        return null;
    }
  }

  static Expr resize(Expr e, int width) {
    return width >= e.width ? extend(e, width) : slice(e, width - 1, 0, e.kind);
  }

  /** An operator whose operands are first extended to {@code width}. */
  static Expr sized(Code code, int width, Kind kind, Expr... args) {
    Expr[] ext = new Expr[args.length];
    for (int i = 0; i < args.length; i++) {
      ext[i] = extend(args[i], width);
    }
    return new Op(code, width, kind, List.of(ext));
  }

  static Expr compare(Code code, Expr a, Expr b) {
    int w = Math.max(a.width, b.width);
    return new Op(code, 1, Kind.BOOL, List.of(extend(a, w), extend(b, w)));
  }

  static Expr mux(Expr cond, Expr whenTrue, Expr whenFalse) {
    if (whenTrue.kind != whenFalse.kind) {
      throw new ElaborationException(SourceLocation.here(), "mux of different kinds "
          + whenTrue.kind.display() + " and " + whenFalse.kind.display() + "; cast one explicitly");
    }
    int w = Math.max(whenTrue.width, whenFalse.width);
    return new Op(Code.MUX, w, whenTrue.kind, List.of(cond, extend(whenTrue, w), extend(whenFalse, w)));
  }

  static Expr cast(Expr e, Kind kind) {
    if (e.kind == kind) {
      return e;
    }
    Code code = switch (kind) {
      case SINT -> Code.AS_SINT;
      case UINT -> Code.AS_UINT;
      default -> Code.AS_BITS;
    };
    return new Op(code, e.width, kind, List.of(e));
  }

  static Expr cat(List<Expr> parts) {
    int w = parts.stream().mapToInt(p -> p.width).sum();
    return parts.size() == 1 ? cast(parts.get(0), Kind.BITS) : new Op(Code.CAT, w, Kind.BITS, parts);
  }

  static void requireSameKind(HwValue a, HwValue b, String op) {
    if (a.kind() != b.kind()) {
      throw new ElaborationException(SourceLocation.here(), String.format(
          "%s of %s and %s: operands must be the same kind; cast one explicitly (asUInt/asSInt/asBits)",
          op, a, b));
    }
  }

  static int log2Ceil(long n) {
    return n <= 1 ? 0 : 64 - Long.numberOfLeadingZeros(n - 1);
  }
}
