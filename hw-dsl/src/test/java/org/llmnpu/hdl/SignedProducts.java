package org.llmnpu.hdl;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.sint;
import static org.llmnpu.hdl.Hw.sintLit;
import static org.llmnpu.hdl.Hw.uint;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Signed products in every position the emitter writes differently, with their values computed
 * in plain Java: sign-extended to a wider sum (the MAC), of operands of different widths, by a
 * constant, of a reinterpreted part-select, truncated to their low bits, keeping their high bits,
 * used twice, inside an unsigned sum, selected by a mux, and driving a child's input. Shared with
 * other modules' tests through hw-dsl's test jar.
 */
public final class SignedProducts extends HwModule {
  /** Operand widths: a and b 8, c 4, d 12, acc 32, u 12 bits; sel one bit. */
  public final SInt a = in(sint(8));
  public final SInt b = in(sint(8));
  public final SInt c = in(sint(4));
  public final SInt d = in(sint(12));
  public final SInt acc = in(sint(32));
  public final UInt u = in(uint(12));
  public final Bool sel = in(bool());
  public final SInt mac = out(sint(32));
  public final SInt mixed = out(sint(20));
  public final SInt byConstant = out(sint(16));
  public final SInt fromBits = out(sint(24));
  public final SInt low = out(sint(8));
  public final SInt lowMixed = out(sint(6));
  public final SInt high = out(sint(16));
  public final SInt sharedWide = out(sint(24));
  public final SInt sharedRaw = out(sint(12));
  public final UInt inUnsignedSum = out(uint(12));
  public final SInt muxed = out(sint(24));
  public final SInt viaChild = out(sint(24));

  /** A child whose input a product drives directly. */
  static final class Buffer extends HwModule {
    final SInt in = in(sint(24));
    final SInt out = out(sint(24));

    Buffer() {
      out.set(in);
    }
  }

  public SignedProducts() {
    mac.set(acc.add(a.mul(b).resize(32)));
    mixed.set(a.mul(c).resize(20));
    byConstant.set(a.mul(sintLit(-3, 3)).resize(16));
    fromBits.set(u.bits(11, 4).asSInt().mul(b).resize(24));
    low.set(a.mul(b).resize(8));
    lowMixed.set(a.mul(c).resize(6));
    high.set(d.mul(d.resize(12).sub(a.resize(12))).shiftRight(8).resize(16));
    SInt shared = a.mul(c);
    sharedWide.set(shared.resize(24));
    sharedRaw.set(shared);
    inUnsignedSum.set(a.mul(c).asUInt().add(u));
    muxed.set(mux(sel, a.mul(b), d.mul(c)).resize(24));
    Buffer child = instance("child", new Buffer());
    child.in.set(b.mul(c).resize(24));
    viaChild.set(child.out);
  }

  /** The outputs for the given input values (signed operands as numbers, u as its bit pattern). */
  public static Map<String, Long> expected(long a, long b, long c, long d, long acc, long u, boolean sel) {
    long fromU = signed((u >> 4) & 0xFF, 8);
    Map<String, Long> out = new LinkedHashMap<>();
    out.put("mac", low(acc + a * b, 32));
    out.put("mixed", low(a * c, 20));
    out.put("byConstant", low(a * -3, 16));
    out.put("fromBits", low(fromU * b, 24));
    out.put("low", low(a * b, 8));
    out.put("lowMixed", low(a * c, 6));
    out.put("high", low(d * signed(low(d - a, 12), 12) >> 8, 16));
    out.put("sharedWide", low(a * c, 24));
    out.put("sharedRaw", low(a * c, 12));
    out.put("inUnsignedSum", low(a * c + u, 12));
    out.put("muxed", low(sel ? a * b : d * c, 24));
    out.put("viaChild", low(b * c, 24));
    return out;
  }

  private static long low(long v, int width) {
    return v & ((1L << width) - 1);
  }

  private static long signed(long bits, int width) {
    return bits >= 1L << (width - 1) ? bits - (1L << width) : bits;
  }
}
