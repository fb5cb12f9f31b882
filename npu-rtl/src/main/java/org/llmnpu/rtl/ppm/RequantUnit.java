package org.llmnpu.rtl.ppm;

import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.sint;
import static org.llmnpu.hdl.Hw.sintLit;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.UInt;

/**
 * One lane of the requantizer, {@code q = clamp(MBQM(sat32(acc + bias), multiplier, shift) + zeroPoint)},
 * in {@code stages} = {@link PpmConfig#requantStages()} register stages, 6, 7 or 8 (equal to
 * {@code org.llmnpu.numerics.requant.Requantizer.requantize}):
 * <ol>
 *   <li>{@code biasSum = sat32(acc + bias)};</li>
 *   <li>{@code biased = saturatingLeftShift(biasSum, max(shift, 0))};</li>
 *   <li>registered partial products of {@code biased} and slices of the multiplier: two 32×16
 *       products (6 stages), four 32×8 (7 stages), or eight 16×8 products of both halves of
 *       {@code biased} and four 8-bit slices (8 stages);</li>
 *   <li>0, 1 or 2 stages (for 6, 7, 8) of pairwise sums, each halving the number of partial
 *       products, down to {@code biased · multiplier[15:0]} and {@code biased · multiplier[30:16]};</li>
 *   <li>{@code high = (biased · multiplier + 2^30) >> 31} from their exact sum —
 *       SaturatingRoundingDoublingHighMul, which cannot saturate because the multiplier is
 *       non-negative;</li>
 *   <li>{@code rounded = roundingDivideByPOT(high, max(−shift, 0))};</li>
 *   <li>{@code q = clamp(rounded + zeroPoint, low, highBound)}
 *       on 33 bits; low is the format minimum (NONE, PPU) or the zero point (RELU, RELU6), the
 *       upper bound the format maximum or {@code sixCode} (RELU6).</li>
 * </ol>
 * The stages are balanced for the NPU's target clock ({@code org.llmnpu.rtl.TargetClock}): the
 * left and right shift amounts are derived from {@code shift} in registers of their own (one
 * cycle after a channel write, like the PPU's Horner shifts), so no stage decodes the shift; the
 * rounding shift and the zero-point clamp are separate stages; with 8 stages no stage holds more
 * than a 16×8 product (a 24-bit carry chain) or one addition of at most 48 bits.
 * The channel inputs ({@code bias} … {@code sixCode}) are read by the stage that uses them, so
 * they must be stable while an element of this lane is in flight — unless the unit is {@code streamed}: then
 * the channel inputs belong to the element presented with them (as {@code acc}) and travel with it, each delayed
 * to the stage that uses it (the multiplier by 2, the right shift by {@code stages − 2}, the zero point and six
 * code by {@code stages − 1} cycles), so every cycle may carry another channel ({@link LinePpm}).
 *
 * <p><b>Gated</b> (streamed only; the SwiGLU gate, {@code org.llmnpu.numerics.requant.GatedRequantizer}): a second
 * output {@link #gatedQ}, 3 cycles after {@link #q}, {@code clamp(roundingDivideByPOT(t · gate, right + 7) + zeroPoint)}
 * with {@code t} the doubling high multiply's INT32 ({@code high}) and {@code gate} the element's INT8 gate code
 * (delayed with it to that stage): stage {@code stages − 1} registers the two partial products of t's 16-bit halves by
 * the gate (16×8, as the multiplier's slices), stage {@code stages} their 40-bit sum, {@code stages + 1} and
 * {@code + 2} the rounding shift by {@code right + 7} (the right shift's register plus 7, delayed with the element),
 * split as the PPU's (barrel shift keeping the round and sticky bits, then the incrementer), {@code stages + 3} the
 * zero point and clamp to INT8. Measured alone (Yosys + OpenSTA, osu018, 5.75 ns, default 8 stages): see npu-rtl
 * README.
 */
public final class RequantUnit extends HwModule {
  /** Width of the exact sums of partial products: |biased| < 2^31 times a 16-bit slice group. */
  private static final int SUM_BITS = 48;

  public final SInt acc = in(sint(32));
  public final SInt bias = in(sint(32));
  public final UInt multiplier = in(uint(PpmConfig.MULTIPLIER_BITS));
  public final SInt shift = in(sint(PpmConfig.CHANNEL_SHIFT_BITS));
  public final SInt zeroPoint;
  /** RELU6 upper bound; present only with activation RELU6. */
  public final SInt sixCode;
  public final SInt q;
  /** The gate code (gated only, else null). */
  public final SInt gate;
  /** The gated code, {@link #gatedLatency()} cycles after the input (gated only, else null). */
  public final SInt gatedQ;
  private final int outBits;
  private final PpmConfig.Activation activation;
  private final int stages;
  private final boolean streamed;
  private final boolean gated;

  /** A lane whose channel inputs are held between elements. */
  public RequantUnit(int outBits, PpmConfig.Activation activation, int stages) {
    this(outBits, activation, stages, false);
  }

  /** {@code streamed}: the channel inputs come with each element (see the class comment). */
  public RequantUnit(int outBits, PpmConfig.Activation activation, int stages, boolean streamed) {
    this(outBits, activation, stages, streamed, false);
  }

  /** {@code gated}: with the gate input and {@link #gatedQ} (streamed, INT8 output, activation NONE or PPU). */
  public RequantUnit(int outBits, PpmConfig.Activation activation, int stages, boolean streamed, boolean gated) {
    if (gated && (!streamed || outBits != 8 || activation == PpmConfig.Activation.RELU
        || activation == PpmConfig.Activation.RELU6)) {
      throw new IllegalArgumentException("gated needs a streamed lane with outBits 8 and activation none or ppu, got "
          + "streamed " + streamed + ", outBits " + outBits + ", activation " + activation);
    }
    if (!PpmConfig.REQUANT_STAGE_CHOICES.contains(stages)) {
      throw new IllegalArgumentException("requantStages must be one of 6, 7, 8, got " + stages);
    }
    this.outBits = outBits;
    this.activation = activation;
    this.stages = stages;
    this.streamed = streamed;
    this.gated = gated;
    zeroPoint = in(sint(outBits));
    gate = gated ? in(sint(8)) : null;
    sixCode = activation == PpmConfig.Activation.RELU6 ? in(sint(outBits)) : null;
    q = out(sint(outBits));
    gatedQ = gated ? out(sint(8)) : null;

    UInt shiftAmount = shift.asUInt().lsbs(PpmConfig.SHIFT_BITS);
    UInt leftShift = regNext("leftShiftAmount", mux(shift.gt(0), shiftAmount, uintLit(0, PpmConfig.SHIFT_BITS)));
    UInt rightShift = delayed("rightShiftAmount", regNext("rightShiftAmount", mux(shift.lt(0),
        shift.neg().asUInt().lsbs(PpmConfig.SHIFT_BITS), uintLit(0, PpmConfig.SHIFT_BITS))), stages - 3);

    SInt biasSum = regNext("biasSum", FixedPointHw.saturatingAdd(acc, bias, 32));
    SInt biased = regNext("biased", FixedPointHw.saturatingLeftShift(biasSum, leftShift));
    List<SInt> halves = multiplyInHalves(biased, delayed("multiplier", multiplier, 2));
    SInt high = regNext("high", FixedPointHw.doublingHighPart(halves.get(1), halves.get(0)));
    SInt rounded = regNext("rounded", FixedPointHw.roundingShiftRight(high, rightShift));
    SInt zeroPointNow = delayed("zeroPoint", zeroPoint, stages - 1);
    SInt withZero = wire("withZero", rounded.addExpand(zeroPointNow.resize(32)));
    long formatMin = -(1L << (outBits - 1));
    long formatMax = (1L << (outBits - 1)) - 1;
    boolean clampsAtZero = activation == PpmConfig.Activation.RELU || activation == PpmConfig.Activation.RELU6;
    SInt low = clampsAtZero ? zeroPointNow : sintLit(formatMin, outBits);
    SInt upper = activation == PpmConfig.Activation.RELU6 ? delayed("sixCode", sixCode, stages - 1)
        : sintLit(formatMax, outBits);
    q.set(regNext("clamped", FixedPointHw.clamp(withZero, low, upper)));
    if (gated) {
      gatedTail(high, delayed("gate", gate, stages - 2), regNext("gateRightShift", regNext("gateRightShift_d0",
          rightShift).resize(PpmConfig.SHIFT_BITS + 1).add(GATE_FRACTION_BITS)), zeroPointNow);
    }
  }

  /** Fraction bits of the gate code (Q0.7), added to the right shift. */
  private static final int GATE_FRACTION_BITS = 7;

  /**
   * {@link #gatedQ} from {@code high} (stage {@code stages − 2}) and the element's gate code at that stage: partial
   * products, their 40-bit sum, the rounding shift by {@code right + 7}, zero point and clamp (see the class comment).
   */
  private void gatedTail(SInt high, SInt gateNow, UInt gateRight, SInt zeroPointEarly) {
    SInt lowProduct = regNext("gateProduct_low", high.asUInt().lsbs(16).toSInt().mul(gateNow));
    SInt highProduct = regNext("gateProduct_high", high.msbs(16).mul(gateNow));
    SInt product = regNext("gateProduct", highProduct.resize(40).shiftLeft(16).resize(40).add(lowProduct.resize(40)));
    // the rounding shift by up to 38 bits split over two stages (barrel shift keeping the round bit and the sticky
    // bit, then the incrementer), as one stage it does not meet the target clock
    SInt floorWithRound = regNext("gateFloor", FixedPointHw.floorShiftKeepingRoundBit(product, gateRight));
    Bool sticky = regNext("gateSticky", FixedPointHw.stickyBelowRoundBit(product, gateRight));
    SInt gatedRounded = regNext("gateRounded", FixedPointHw.roundUpFromRoundBit(floorWithRound, sticky));
    SInt zp = delayed("gateZeroPoint", zeroPointEarly, 3);
    SInt withZero = wire("gateWithZero", gatedRounded.addExpand(zp.resize(40)));
    gatedQ.set(regNext("gateClamped", FixedPointHw.clamp(withZero, sintLit(-128, 8), sintLit(127, 8))));
  }

  /** Cycles from an element's inputs to its {@link #gatedQ}: {@code stages + 3}. */
  public int gatedLatency() {
    return stages + 3;
  }

  /**
   * {@code biased · multiplier[15:0]} and {@code biased · multiplier[30:16]} (index 0 and 1), each
   * exact in {@value #SUM_BITS} bits, from registered partial products summed pairwise, one
   * registered tree level per stage: 6 stages multiply {@code biased} by 16-bit slices (two
   * products, no tree level), 7 by 8-bit slices (four products, one level), 8 multiplies both
   * 16-bit halves of {@code biased} by the 8-bit slices (eight 16×8 products, whose halves are
   * joined in the first level).
   */
  private List<SInt> multiplyInHalves(SInt biased, UInt multiplier) {
    int sliceBits = stages == 6 ? 16 : 8;
    int slices = 32 / sliceBits;
    List<SInt> level = new ArrayList<>();
    for (int k = 0; k < slices; k++) {
      int top = Math.min((k + 1) * sliceBits, PpmConfig.MULTIPLIER_BITS) - 1;
      SInt slice = multiplier.slice(top, k * sliceBits).toSInt();
      if (stages < 8) {
        level.add(regNext("product" + k, biased.mul(slice).resize(SUM_BITS)));
        continue;
      }
      SInt low = regNext("product" + k + "_low", biased.asUInt().lsbs(16).toSInt().mul(slice));
      SInt high = regNext("product" + k + "_high", biased.msbs(16).mul(slice));
      // low < 2^24, |high| < 2^23: the joined product overlaps them in bits 16..23 only
      level.add(high.resize(SUM_BITS).shiftLeft(16).resize(SUM_BITS).add(low.resize(SUM_BITS)));
    }
    if (stages == 8) {
      for (int k = 0; k < level.size(); k++) {
        level.set(k, regNext("product" + k, level.get(k)));
      }
    }
    int groupBits = sliceBits;
    for (int depth = 1; level.size() > 2; depth++) {
      List<SInt> next = new ArrayList<>();
      for (int k = 0; k < level.size(); k += 2) {
        SInt sum = level.get(k + 1).shiftLeft(groupBits).resize(SUM_BITS).add(level.get(k));
        next.add(regNext("productSum" + depth + "_" + k / 2, sum));
      }
      level = next;
      groupBits *= 2;
    }
    return level;
  }

  /** {@code value} delayed {@code cycles} registers when {@link #streamed}, else itself. */
  private <T extends org.llmnpu.hdl.HwValue> T delayed(String name, T value, int cycles) {
    T v = value;
    for (int i = 1; streamed && i <= cycles; i++) {
      v = regNext(name + "_d" + i, v);
    }
    return v;
  }

  @Override
  public String moduleName() {
    return "PpmRequant_o" + outBits + "_" + activation.name().toLowerCase() + "_r" + stages + (streamed ? "_s" : "")
        + (gated ? "_g" : "");
  }
}
