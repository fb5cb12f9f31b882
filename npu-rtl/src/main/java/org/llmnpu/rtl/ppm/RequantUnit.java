package org.llmnpu.rtl.ppm;

import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.sint;
import static org.llmnpu.hdl.Hw.sintLit;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.UInt;

/**
 * One lane of the requantizer, {@code q = clamp(MBQM(sat32(acc + bias), multiplier, shift) + zeroPoint)},
 * in {@link PpmConfig#REQUANT_STAGES} = 7 register stages (equal to
 * {@code org.llmnpu.numerics.requant.Requantizer.requantize}):
 * <ol>
 *   <li>{@code biasSum = sat32(acc + bias)};</li>
 *   <li>{@code biased = saturatingLeftShift(biasSum, max(shift, 0))};</li>
 *   <li>partial products {@code biased · multiplier[8k+7:8k]}, k = 0..3;</li>
 *   <li>their pairwise sums {@code biased · multiplier[15:0]} and {@code biased · multiplier[30:16]};</li>
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
 * cycle after a channel write, like the PPU's Horner shifts), so no stage decodes the shift, and
 * the rounding shift and the zero-point clamp are separate stages. The channel inputs
 * ({@code bias} … {@code sixCode}) are read by the stage that uses them, so they must be stable
 * while an element of this lane is in flight.
 */
public final class RequantUnit extends HwModule {
  public final SInt acc = in(sint(32));
  public final SInt bias = in(sint(32));
  public final UInt multiplier = in(uint(PpmConfig.MULTIPLIER_BITS));
  public final SInt shift = in(sint(PpmConfig.CHANNEL_SHIFT_BITS));
  public final SInt zeroPoint;
  /** RELU6 upper bound; present only with activation RELU6. */
  public final SInt sixCode;
  public final SInt q;
  private final int outBits;
  private final PpmConfig.Activation activation;

  public RequantUnit(int outBits, PpmConfig.Activation activation) {
    this.outBits = outBits;
    this.activation = activation;
    zeroPoint = in(sint(outBits));
    sixCode = activation == PpmConfig.Activation.RELU6 ? in(sint(outBits)) : null;
    q = out(sint(outBits));

    UInt shiftAmount = shift.asUInt().lsbs(PpmConfig.SHIFT_BITS);
    UInt leftShift = regNext("leftShiftAmount", mux(shift.gt(0), shiftAmount, uintLit(0, PpmConfig.SHIFT_BITS)));
    UInt rightShift = regNext("rightShiftAmount", mux(shift.lt(0), shift.neg().asUInt().lsbs(PpmConfig.SHIFT_BITS),
        uintLit(0, PpmConfig.SHIFT_BITS)));

    SInt biasSum = regNext("biasSum", FixedPointHw.saturatingAdd(acc, bias, 32));
    SInt biased = regNext("biased", FixedPointHw.saturatingLeftShift(biasSum, leftShift));
    // The 32 x 31 product as four registered 32 x 8 partial products, summed pairwise into the
    // 32 x 16 halves in the next stage and into the doubling high part in the one after.
    SInt product0 = regNext("product0", biased.mul(multiplier.slice(7, 0).toSInt()));
    SInt product1 = regNext("product1", biased.mul(multiplier.slice(15, 8).toSInt()));
    SInt product2 = regNext("product2", biased.mul(multiplier.slice(23, 16).toSInt()));
    SInt product3 = regNext("product3", biased.mul(multiplier.slice(PpmConfig.MULTIPLIER_BITS - 1, 24).toSInt()));
    // |biased| < 2^31 and both halves of the multiplier are below 2^16: each sum fits in 48 bits
    SInt productLow = regNext("productLow", product1.resize(48).shiftLeft(8).resize(48).add(product0.resize(48))
        .resize(48));
    SInt productHigh = regNext("productHigh", product3.resize(48).shiftLeft(8).resize(48).add(product2.resize(48))
        .resize(48));
    SInt high = regNext("high", FixedPointHw.doublingHighPart(productHigh, productLow));
    SInt rounded = regNext("rounded", FixedPointHw.roundingShiftRight(high, rightShift));
    SInt withZero = wire("withZero", rounded.addExpand(zeroPoint.resize(32)));
    long formatMin = -(1L << (outBits - 1));
    long formatMax = (1L << (outBits - 1)) - 1;
    boolean clampsAtZero = activation == PpmConfig.Activation.RELU || activation == PpmConfig.Activation.RELU6;
    SInt low = clampsAtZero ? zeroPoint : sintLit(formatMin, outBits);
    SInt upper = activation == PpmConfig.Activation.RELU6 ? sixCode : sintLit(formatMax, outBits);
    q.set(regNext("clamped", FixedPointHw.clamp(withZero, low, upper)));
  }

  @Override
  public String moduleName() {
    return "PpmRequant_o" + outBits + "_" + activation.name().toLowerCase();
  }
}
