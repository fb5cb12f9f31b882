package org.llmnpu.rtl.dsp;

import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.uintLit;

import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.Vec;
import org.llmnpu.isa.dsp.DspFix;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspPipe;
import org.llmnpu.rtl.mx.LeadingZeros;
import org.llmnpu.rtl.vector.Fp32Fma;

/**
 * The lane logic of {@link DspLane} that is not its pipeline: the FP32 FMA path ({@code fma32}), the
 * FP16 comparisons of the table segment search, the exponent extraction ({@code EXPO}), the special
 * cases of {@code FIX} ({@link DspFix}), the op classes and the pipelined units a lane is built with. Each method builds its logic into the lane
 * (the generated Verilog is the lane's).
 */
abstract class DspLaneUnits extends HwModule {
  /** The FP32 FMA unit of a lane of {@code stages} execute stages (split like the other FP units), not instanced. */
  static Fp32Fma fp32FmaUnit(int stages) {
    return new Fp32Fma(new Fp32Fma.Config(0, stages - 1));
  }

  /** The FP32 FMA's result for the registered operands, from {@code unit} ({@link #fp32FmaUnit}, instanced). */
  UInt fp32Fma(Fp32Fma unit, UInt a, UInt b, UInt c) {
    unit.a.set(a);
    unit.b.set(b);
    unit.c.set(c);
    return unit.result;
  }

  /**
   * The pipelined units a lane is built with, in {@code DspLane#pipeEnable}'s bit order: every {@link DspPipe}, FMA32
   * only with {@code fma32}.
   */
  static java.util.List<DspPipe> pipes(boolean fma32) {
    return java.util.Arrays.stream(DspPipe.values()).filter(p -> p != DspPipe.FMA32 || fma32).toList();
  }

  /** Whether {@code op} writes rd, among the ops a lane is built with ({@link DspOp#writesRegister()}). */
  static Bool writesRegister(UInt op, boolean fma32, boolean permute) {
    Bool w = op.ge(DspOp.LI.code()).and(op.le((fma32 ? DspOp.FMA32 : DspOp.FMA16).code())).and(op.ne(DspOp.ST.code()));
    return permute ? w.or(op.eq(DspOp.LDS.code())).or(op.eq(DspOp.ROT.code())).or(op.eq(DspOp.LDG.code())) : w;
  }

  /** Whether {@code op} writes the buffer (ST; STS and STG with {@code permute}). */
  static Bool storeOp(UInt op, boolean permute) {
    Bool st = op.eq(DspOp.ST.code());
    return permute ? st.or(op.eq(DspOp.STS.code())).or(op.eq(DspOp.STG.code())) : st;
  }

  /** {@code v} delayed to execute N of {@code stages} (N − 1 registers, {@code <name>2..<name>N}). */
  Bool delay(String name, int stages, Bool v) {
    Bool d = v;
    for (int j = 2; j <= stages; j++) {
      d = regNext(name + j, d);
    }
    return d;
  }

  /** Whether {@code op} is one whose result is rounded in execute 2 ({@link DspOp#roundsLate()}). */
  static Bool lateOp(UInt op, boolean fma32) {
    Bool any = boolLit(false);
    for (DspOp o : DspOp.values()) {
      if (o.roundsLate() && (o != DspOp.FMA32 || fma32)) {
        any = any.or(op.eq(o.code()));
      }
    }
    return any;
  }

  static Bool inRange(UInt op, DspOp first, DspOp last) {
    return op.ge(first.code()).and(op.le(last.code()));
  }

  /** IEEE order key of an FP16 code: monotone in the value for non-NaN codes, −0 just below +0. */
  private static UInt orderKey(UInt x) {
    return mux(x.bit(15), x.not(), x.or(uintLit(0x8000, 16)));
  }

  private static Bool isNaN(UInt x) {
    return x.slice(14, 10).andR().and(x.lsbs(10).orR());
  }

  /** IEEE x ≤ y of FP16 codes (false with a NaN, +0 == −0). */
  private static Bool lessOrEqual(UInt x, UInt y) {
    Bool bothZero = x.lsbs(15).orR().not().and(y.lsbs(15).orR().not());
    return isNaN(x).not().and(isNaN(y).not()).and(orderKey(x).le(orderKey(y)).or(bothZero));
  }

  /** The last segment whose start ≤ v (0 if none). */
  UInt segment(UInt v, Vec<UInt> starts, int segments) {
    UInt s = uintLit(0, 4);
    for (int i = 1; i < segments; i++) {
      s = mux(lessOrEqual(starts.get(i), v), uintLit(i, 4), s);
    }
    return wire("segment", s);
  }

  /**
   * floor(log2 |x|) of an IEEE code with the given field widths (FP16: 5/10, FP32: 8/23), as a
   * 32-bit integer: field − bias for normals, −bias − leadingZeros(fraction) for subnormals, 0 for
   * ±0, ±∞, NaN.
   */
  UInt exponentOf(UInt x, int exponentBits, int mantissaBits, String name) {
    int bias = (1 << (exponentBits - 1)) - 1;
    UInt field = x.slice(exponentBits + mantissaBits - 1, mantissaBits);
    UInt fraction = x.lsbs(mantissaBits);
    UInt normal = field.resize(32).sub(uintLit(bias, 32));
    UInt subnormal = uintLit(-bias & 0xFFFFFFFFL, 32).sub(LeadingZeros.count(fraction).resize(32));
    Bool isNormal = field.orR().and(field.andR().not());
    Bool isSubnormal = field.orR().not().and(fraction.orR());
    return wire(name, mux(isNormal, normal, mux(isSubnormal, subnormal, uintLit(0, 32))));
  }

  /** {@link DspFix} of the computed value y for argument x; the kind is aux[1:0]. */
  UInt fix(UInt x, UInt y, UInt aux) {
    Bool nan = isNaN(x);
    Bool negative = x.bit(15);
    UInt magnitude = x.lsbs(15);
    Bool zero = magnitude.orR().not();
    Bool infinite = magnitude.eq(0x7C00);
    Bool atLeast12 = negative.not().and(magnitude.ge(0x4A00)).and(nan.not());
    Bool atMostMinus18 = negative.and(magnitude.ge(0x4C80)).and(nan.not());
    Bool atMostMinus40 = negative.and(magnitude.ge(0x5100)).and(nan.not());
    UInt canonicalNaN = uintLit(0x7E00, 16);
    UInt plusInfinity = uintLit(0x7C00, 16);
    UInt plusZero = uintLit(0, 16);
    UInt signedInfinity = cat(negative, uintLit(0x7C00, 15)).asUInt();
    UInt signedZero = cat(negative, uintLit(0, 15)).asUInt();
    UInt exp = mux(nan, canonicalNaN, mux(atLeast12, plusInfinity, mux(atMostMinus18, plusZero, y)));
    UInt expParts = mux(nan, canonicalNaN, mux(atLeast12, plusInfinity, mux(atMostMinus40, plusZero, y)));
    UInt reciprocal = mux(nan, canonicalNaN, mux(zero, signedInfinity, mux(infinite, signedZero,
        y.xor(cat(negative, uintLit(0, 15)).asUInt()))));
    UInt rsqrt = mux(nan, canonicalNaN, mux(zero, signedInfinity, mux(negative, canonicalNaN,
        mux(infinite, plusZero, y))));
    UInt kind = aux;
    return wire("fixed", mux(kind.eq(DspFix.EXP.code()), exp, mux(kind.eq(DspFix.EXP_PARTS.code()), expParts,
        mux(kind.eq(DspFix.RECIPROCAL.code()), reciprocal, rsqrt))));
  }
}
