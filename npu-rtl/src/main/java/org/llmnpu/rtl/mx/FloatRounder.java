package org.llmnpu.rtl.mx;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.sint;
import static org.llmnpu.hdl.Hw.sintLit;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.UInt;

/**
 * Rounds the exact value {@code (-1)^negative · magnitude · 2^exponent} once to a float layout,
 * combinationally, exactly as {@code FloatFormat.roundExact} of the golden model: normalize with
 * a leading-zero count, keep {@code mantissaBits + 1} bits at the value's binade (or at the
 * subnormal quantum below the smallest normal: gradual underflow, never flushed), round with
 * the {@link RoundMode} from the round bit and the sticky OR, and let a carry out of the
 * mantissa step the exponent ({@code code = (biasedExp − 1) · 2^m + roundedSignificand}). A
 * magnitude above the largest finite code saturates to it ({@code saturate}) or becomes ±∞
 * (IEEE layouts only). A zero magnitude, or a value that rounds to zero, gives a zero with
 * the input's sign; {@code inexact} flags that nonzero bits were rounded off. Latency 0
 * (combinational), or 1 with {@code split} (a register after the normalization; {@code inexact}
 * then also comes one cycle later), plus 1 with {@code splitCount} (a register after the
 * leading-zero count, before the normalizing shift).
 */
public final class FloatRounder extends HwModule {
  /**
   * @param magnitudeWidth bits of the unsigned magnitude, 1..128
   * @param exponentWidth bits of the signed exponent, 2..16
   * @param target the layout rounded to
   * @param rounding the rounding mode
   * @param saturate saturate to ±max finite; otherwise overflow gives ±∞ (IEEE targets only)
   */
  public record Config(int magnitudeWidth, int exponentWidth, FpLayout target, RoundMode rounding, boolean saturate) {
    public Config {
      if (magnitudeWidth < 1 || magnitudeWidth > 128) {
        throw new IllegalArgumentException("magnitudeWidth must be in 1..128, got " + magnitudeWidth);
      }
      if (exponentWidth < 2 || exponentWidth > 16) {
        throw new IllegalArgumentException("exponentWidth must be in 2..16, got " + exponentWidth);
      }
      if (!saturate && target.specials() != FpLayout.Specials.IEEE) {
        throw new IllegalArgumentException("overflow to infinity needs an IEEE target layout, got " + target);
      }
    }
  }

  public final Bool negative = in(bool());
  public final UInt magnitude;
  public final SInt exponent;
  public final UInt code;
  /** Some nonzero bits were rounded off (IEEE inexact, before the overflow policy). */
  public final Bool inexact = out(bool());
  private final Config config;
  private final boolean split;
  private final boolean earlyDenormal;
  private final boolean splitCount;

  /** Combinational (latency 0). */
  public FloatRounder(Config c) {
    this(c, false);
  }

  /**
   * With {@code split}, a pipeline register after the normalization (the normalized top bits, the
   * sticky bit below them, the biased exponent, the sign and the zero flag): latency 1.
   */
  public FloatRounder(Config c, boolean split) {
    this(c, split, false);
  }

  /**
   * With {@code split}, and with {@code earlyDenormal} the subnormal flag and the denormalization
   * shift also computed before the register (from the biased exponent, in parallel with the
   * normalizing shift), which leaves less after it: the rounding, the exponent field and the
   * overflow check.
   */
  public FloatRounder(Config c, boolean split, boolean earlyDenormal) {
    this(c, split, earlyDenormal, false);
  }

  /**
   * As {@link #FloatRounder(Config, boolean, boolean)}, and with {@code splitCount} one more
   * pipeline register (latency + 1) right after the leading-zero count: the magnitude, the count,
   * the exponent and the sign are registered, so the count and the normalizing shift (with the
   * exponent adjustment) fall in different cycles. Off, the hardware is that of the three-argument
   * constructor.
   */
  public FloatRounder(Config c, boolean split, boolean earlyDenormal, boolean splitCount) {
    config = c;
    this.split = split;
    this.earlyDenormal = split && earlyDenormal;
    this.splitCount = splitCount;
    FpLayout t = c.target();
    int w = c.magnitudeWidth();
    int m = t.mantissaBits();
    magnitude = in(uint(w));
    exponent = in(sint(c.exponentWidth()));
    code = out(uint(t.totalBits()));

    // with splitCount, everything after the count reads the registered inputs (else these are the inputs)
    UInt leadingZeros = wire("leadingZeros", countStage("leadingZeros", LeadingZeros.count(magnitude)));
    UInt magnitude = countStage("magnitude", this.magnitude);
    SInt exponent = countStage("exponent", this.exponent);
    Bool negative = countStage("negative", this.negative);
    UInt normalized = wire("normalized", magnitude.shiftLeft(leadingZeros));
    // the top m+2 bits are significand and round bit; everything below only feeds the sticky bit
    UInt top = stage("top", w >= m + 2 ? normalized.msbs(m + 2) : normalized.shiftLeft(m + 2 - w));
    Bool lowSticky = stage("lowSticky", w > m + 2 ? normalized.lsbs(w - m - 2).orR() : boolLit(false));

    int xw = Math.max(c.exponentWidth(), bitsToHold(w + t.bias() + 2)) + 3;
    SInt biasedExponent;
    Bool subnormal;
    UInt denormShift;
    int shiftWidth = bitsToHold(m + 2);
    if (this.earlyDenormal) { // the field: only a split rounder computes the denormalization early
      SInt early = exponent.resize(xw).add(sintLit(w - 1L + t.bias(), xw)).sub(leadingZeros.resize(xw - 1).toSInt());
      Bool earlySubnormal = early.lt(1);
      SInt deficit = sintLit(1, xw).sub(early);
      UInt cappedDeficit = mux(deficit.gt(m + 2), uintLit(m + 2, shiftWidth), deficit.resize(shiftWidth).asUInt());
      // only the exponent field's bits are needed after the register (subnormal is registered itself)
      biasedExponent = wire("biasedExponent", stage("biasedExponent", early.resize(xw - 1)));
      subnormal = wire("subnormal", stage("subnormal", earlySubnormal));
      denormShift = wire("denormShift", stage("denormShift", mux(earlySubnormal, cappedDeficit,
          uintLit(0, shiftWidth))));
    } else {
      biasedExponent = wire("biasedExponent", stage("biasedExponent", exponent.resize(xw)
          .add(sintLit(w - 1L + t.bias(), xw)).sub(leadingZeros.resize(xw - 1).toSInt())));
      subnormal = wire("subnormal", biasedExponent.lt(1));
      SInt deficit = sintLit(1, xw).sub(biasedExponent);
      UInt cappedDeficit = mux(deficit.gt(m + 2), uintLit(m + 2, shiftWidth), deficit.resize(shiftWidth).asUInt());
      denormShift = wire("denormShift", mux(subnormal, cappedDeficit, uintLit(0, shiftWidth)));
    }

    UInt aligned = wire("aligned", top.shiftLeft(m + 2).shiftRight(denormShift));
    UInt kept = aligned.msbs(m + 1);
    Bool half = aligned.bit(m + 2);
    Bool sticky = aligned.lsbs(m + 2).orR().or(lowSticky);
    Bool roundUp = c.rounding().roundsUp(kept.bit(0), half, sticky);
    inexact.set(half.or(sticky));
    UInt rounded = wire("rounded", kept.addExpand(roundUp.asUInt()));

    int cw = xw - 1 + m;
    UInt exponentField = mux(subnormal, uintLit(0, xw - 1), biasedExponent.sub(1).resize(xw - 1).asUInt());
    UInt magnitudeCode = wire("magnitudeCode", exponentField.shiftLeft(m).add(rounded.resize(cw)));
    Bool overflow = wire("overflow", magnitudeCode.gt(t.maxFiniteMagnitude()));
    int mw = t.totalBits() - 1;
    UInt onOverflow = uintLit(c.saturate() ? t.maxFiniteMagnitude() : t.infinityMagnitude(), mw);
    UInt finite = mux(overflow, onOverflow, magnitudeCode.resize(mw));
    UInt result = mux(stage("nonZero", magnitude.orR()), finite, uintLit(0, mw));
    code.set(cat(stage("negative", negative), result).asUInt());
  }

  /** {@code v}, or {@code v} one cycle later with the register after the leading-zero count. */
  private <T extends org.llmnpu.hdl.HwValue> T countStage(String name, T v) {
    return splitCount ? regNext("count_" + name, v) : v;
  }

  /** {@code v}, or {@code v} one cycle later with the split register. */
  private <T extends org.llmnpu.hdl.HwValue> T stage(String name, T v) {
    return split ? regNext("split_" + name, v) : v;
  }

  @Override
  public String moduleName() {
    FpLayout t = config.target();
    return "FloatRounder_m" + config.magnitudeWidth() + "_x" + config.exponentWidth() + "_e" + t.exponentBits()
        + "m" + t.mantissaBits() + "b" + t.bias() + "_" + t.specials().name().toLowerCase() + "_"
        + config.rounding().cliName() + (config.saturate() ? "_sat" : "_inf") + (split ? "_split" : "")
        + (earlyDenormal ? "_early" : "") + (splitCount ? "_lzc" : "");
  }
}
