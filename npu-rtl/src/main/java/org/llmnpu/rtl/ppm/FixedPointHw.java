package org.llmnpu.rtl.ppm;

import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.sintLit;
import static org.llmnpu.hdl.Hw.uintLit;

import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.UInt;

/**
 * Combinational fixed-point operators of the gemmlowp convention, as hardware expressions.
 * Each equals its counterpart in {@code org.llmnpu.numerics.requant.FixedPoint} bit for bit.
 */
final class FixedPointHw {
  private FixedPointHw() {
  }

  /** {@code a + b} clamped to {@code bits} signed bits. */
  static SInt saturatingAdd(SInt a, SInt b, int bits) {
    return a.addExpand(b).saturate(bits);
  }

  /** {@code x · 2^amount} clamped to the range of x's width. */
  static SInt saturatingLeftShift(SInt x, UInt amount) {
    int w = x.width();
    int maxShift = (1 << amount.width()) - 1;
    return x.resize(w + maxShift).shiftLeft(amount).saturate(w);
  }

  /**
   * {@code x / 2^amount} rounded to nearest, ties away from zero (gemmlowp RoundingDivideByPOT),
   * at x's width. Computed as {@code (x + 2^(amount−1) − [x < 0 and amount > 0]) >> amount}
   * on one extra bit, which equals gemmlowp's {@code (x >> e) + (remainder > threshold)}.
   */
  static SInt roundingShiftRight(SInt x, UInt amount) {
    int w = x.width() + 1;
    if (amount.width() >= w) {
      throw new IllegalArgumentException("shift amount of " + amount.width() + " bits too wide for a "
          + x.width() + "-bit value");
    }
    SInt half = uintLit(1, w).shiftLeft(amount).shiftRight(1).resize(w).asSInt();
    SInt towardZero = mux(x.isNegative().and(amount.ne(0)), sintLit(1, w), sintLit(0, w));
    return x.resize(w).add(half).sub(towardZero).shiftRight(amount).resize(x.width());
  }

  /**
   * First half of {@link #roundingShiftRight} split over two stages: {@code floor(x / 2^(amount−1))}
   * on {@code width(x) + 1} bits ({@code 2x} when amount is 0), whose bit 0 is the round bit and
   * whose upper bits are {@code floor(x / 2^amount)}. A barrel shift, no carry chain.
   */
  static SInt floorShiftKeepingRoundBit(SInt x, UInt amount) {
    checkShiftWidth(x, amount);
    return x.resize(x.width() + 1).shiftLeft(1).resize(x.width() + 1).shiftRight(amount);
  }

  /** The sticky bit of {@link #floorShiftKeepingRoundBit}: any bit of x below bit {@code amount − 1} set. */
  static Bool stickyBelowRoundBit(SInt x, UInt amount) {
    checkShiftWidth(x, amount);
    UInt ones = uintLit((1L << x.width()) - 1, x.width());
    UInt belowRound = ones.shiftLeft(amount).not().shiftRight(1);
    return x.asUInt().and(belowRound).orR();
  }

  /**
   * Second half: {@code x / 2^amount} rounded to nearest, ties away from zero, from
   * {@code floorWithRound} = {@link #floorShiftKeepingRoundBit} and its sticky bit, at
   * {@code width(floorWithRound) − 1} bits. Equal to {@link #roundingShiftRight}: a
   * non-negative x rounds up when the round bit is set, a negative x only when bits below it are
   * set too (a tie goes toward −∞, away from zero). An incrementer.
   */
  static SInt roundUpFromRoundBit(SInt floorWithRound, Bool sticky) {
    int w = floorWithRound.width() - 1;
    Bool up = floorWithRound.bit(0).and(floorWithRound.isNegative().not().or(sticky));
    return floorWithRound.shiftRight(1).add(mux(up, sintLit(1, w), sintLit(0, w)));
  }

  private static void checkShiftWidth(SInt x, UInt amount) {
    if (x.width() > 62 || amount.width() > 6) {
      throw new IllegalArgumentException("a " + x.width() + "-bit value shifted by a " + amount.width()
          + "-bit amount: the split rounding shift takes values up to 62 bits and amounts up to 6 bits");
    }
  }

  /**
   * gemmlowp's doubling high multiply for a non-negative multiplier, {@code (x · m + 2^30) >> 31},
   * from the partial products {@code high = x · m[30:16]} and {@code low = x · m[15:0]} of the
   * exact product {@code high · 2^16 + low}. The value fits in 32 bits.
   */
  static SInt doublingHighPart(SInt high, SInt low) {
    SInt sum = high.resize(48).shiftLeft(16).add(low.resize(64)).add(1L << 30);
    return sum.shiftRight(31).resize(32);
  }

  /** {@code x} clamped to {@code [low, high]} at the bounds' width. */
  static SInt clamp(SInt x, SInt low, SInt high) {
    int w = Math.max(x.width(), low.width());
    SInt wide = x.resize(w);
    SInt raised = mux(wide.lt(low.resize(w)), low.resize(w), wide);
    return mux(raised.gt(high.resize(w)), high.resize(w), raised).resize(high.width());
  }
}
