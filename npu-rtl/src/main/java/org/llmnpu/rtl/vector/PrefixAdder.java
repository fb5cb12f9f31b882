package org.llmnpu.rtl.vector;

import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.uintLit;

import org.llmnpu.hdl.UInt;

/**
 * A wrapping sum {@code a + b + carryIn} (mod 2^w) as a Kogge–Stone parallel-prefix adder: the
 * generate and propagate bits of every position are combined in ⌈log2 w⌉ levels of and/or gates
 * ({@code G = G | P & (G << k)}, {@code P = P & (P << k)}, k = 1, 2, 4, …), so the carry into bit
 * w − 1 passes ⌈log2 w⌉ + 2 gate levels instead of the w − 1 of a ripple. Built from bit gates, so
 * Yosys does not merge it with another adder or map it as an {@code $alu} ripple; ABC's mapping may
 * still restructure it (in the tiny NPU's accumulate-into drain it became a ripple again), so a use
 * is kept only where the timing report shows the gain. Combinational; bit-exact with the {@code +}
 * of the operands' width.
 *
 * <p>Used where a 32-bit sum sits on a register-to-register path that a ripple does not fit in the
 * target clock ({@code TargetClock}): the Vector DSP lanes' integer add and subtract, whose result is
 * forwarded to the next instruction's operands in the same cycle.
 */
public final class PrefixAdder {
  private PrefixAdder() {
  }

  /** {@code a + b} (mod 2^w), w = the operands' width (equal). */
  public static UInt add(UInt a, UInt b) {
    return sum(a, b, false);
  }

  /** {@code a − b} (mod 2^w) as {@code a + ~b + 1}. */
  public static UInt subtract(UInt a, UInt b) {
    return sum(a, b.not(), true);
  }

  /** {@code a + b + carryIn} (mod 2^w). */
  public static UInt sum(UInt a, UInt b, boolean carryIn) {
    int w = a.width();
    if (b.width() != w) {
      throw new IllegalArgumentException("operand widths differ: " + w + " and " + b.width());
    }
    UInt p = a.xor(b);
    UInt g = a.and(b);
    if (carryIn) {
      // the carry-in is a generate below bit 0: bit 0 generates when it propagates it
      g = g.or(p.and(uintLit(1, w)));
    }
    // after the levels, g[i] is the carry out of bit i (including the carry-in)
    UInt gp = g;
    UInt pp = p;
    for (int k = 1; k < w; k <<= 1) {
      UInt nextG = gp.or(pp.and(gp.shiftLeft(k)));
      pp = pp.and(pp.shiftLeft(k));
      gp = nextG;
    }
    // the carry into bit i is the carry out of bit i − 1; into bit 0, the carry-in
    UInt carries = w == 1 ? uintLit(carryIn ? 1 : 0, 1)
        : cat(gp.lsbs(w - 1), uintLit(carryIn ? 1 : 0, 1)).asUInt();
    return p.xor(carries);
  }
}
