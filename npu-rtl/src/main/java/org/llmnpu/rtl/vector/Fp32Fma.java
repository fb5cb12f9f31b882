package org.llmnpu.rtl.vector;

import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.sintLit;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.gen.DeclaredGenerator;
import org.llmnpu.rtl.mx.FloatRounder;
import org.llmnpu.rtl.mx.FpLayout;
import org.llmnpu.rtl.mx.MxDotTerms;
import org.llmnpu.rtl.mx.RoundMode;

/**
 * FP32 fused multiply-add {@code result = a·b + c}, rounded once (RNE, gradual underflow,
 * overflow to ±∞, canonical NaN 0x7FC00000) — bit-exact with {@code org.llmnpu.numerics.fp.Fma.fp32Bits}
 * (IEEE 754-2019 fusedMultiplyAdd). The Vector DSP's {@code FMA32}.
 *
 * <p><b>Numerics.</b> The product {@code P = mp·2^e0} ({@code mp} the 48-bit product of the
 * significands, not normalized; {@code e0 = effA + effB − 300}) and the addend {@code C = mc·2^ec}
 * are added in a 77-bit window on the grid {@code 2^(e0−3)}: the product at bits 3..50, the addend
 * at its distance {@code δ = ec − e0} (bits {@code δ+3..δ+26}), every addend bit at or below bit 0
 * ORed into bit 0 (sticky). The addend's position depends on the exponents only, so it is aligned
 * while the significands are multiplied:
 * <ul>
 *   <li>{@code δ ≥ 50}: {@code |P| < 2^(ec−2)}, less than a quarter of the addend's smallest
 *       neighbouring ulp, so the rounded sum is {@code c} itself;</li>
 *   <li>otherwise the window sum is exact, or (with addend bits below bit 1, only when
 *       {@code δ ≤ −3}) it lies in the same open interval between multiples of {@code 2^(e0−2)} as
 *       the exact sum: then the product, at least {@code 2^(e0+23)} (one operand is normal, else
 *       {@code δ ≥ 149}), keeps the sum above {@code 2^(e0+22)}, where representable values and
 *       midpoints are multiples of {@code 2^(e0−2)}; both round alike. A far-away addend ({@code δ < −25})
 *       is only its sticky bit.</li>
 * </ul>
 * The sum is sign-magnitude, from one 3:2 carry-save level and a compound carry-select sum of
 * {@link PrefixAdder}s that gives both {@code S0 = P + B} and {@code S0 + 1}: {@code B = C} for equal
 * signs ({@code S0}); else {@code B = ~C}, so {@code S0 = P − C − 1}, and {@code |P − C|} is
 * {@code S0 + 1} when {@code P > C}, else {@code ~S0} (+0 when {@code C = P}). One
 * {@link FloatRounder} rounds the magnitude with exponent {@code e0 − 3}.
 * The significand product is a 3:2 carry-save tree of the 24 partial products (7 full-adder
 * levels), kept as two rows until the window sum. Exact zero: −0 only for (−0 product) + (−0);
 * cancellation gives +0. A zero product gives {@code c}. Specials: a NaN operand, ∞·0 and ∞ − ∞
 * give 0x7FC00000; otherwise an infinite product or addend gives that infinity.
 *
 * <p>Why this form: the earlier unit normalized the 24×24 product (leading-zero count and shift) and
 * then aligned and compared it with the addend in one cone of logic; ABC's SAT sweep ({@code &fraig})
 * of that cone did not finish in 20 minutes, so the unit could not be timed. Here no shift or
 * comparison follows the multiplier, and every cycle's cone is small (synthesis under 20 s at
 * {@code stages} 3, under 40 s at 0).
 *
 * <p><b>Latency</b> {@code stages + latency} cycles (throughput one per cycle): {@code stages}
 * internal registers (0..3) — 1 holds the exact window sum (its carry-select parts) before the
 * rounder; 2 also the decoded operands, the product's two carry-save rows and the aligned addend;
 * 3 also splits the rounder after its normalization — and {@code latency} 1 registers the result.
 * The cycles at {@code stages} 3, {@code latency} 1: decode, carry-save product and addend
 * alignment | carry-save level and the window sum's halves (each with and without a carry-in) |
 * carry select, sign and magnitude, leading-zero count and normalization | rounding, into
 * {@code result}.
 */
public final class Fp32Fma extends FmaUnit {
  private static final int CANONICAL_NAN = 0x7FC00000;
  /** The exact window (77 bits) plus the sign of {@code P − C}. */
  private static final int SUM_BITS = 78;
  /** Window bits the addend can reach (0..75): {@code δ ≤ 49}. */
  private static final int ADDEND_BITS = 76;
  /** The product rows: 48 bits plus one bit per carry-save level (no carry is dropped). */
  private static final int ROW_BITS = 56;
  private static final int EXPONENT_BITS = 11;
  /** The window sum's low part (carry-select split, see {@link #compoundSum}). */
  private static final int LOW_BITS = 39;

  public Fp32Fma(Config config) {
    super(32, config);
    FpOperand p = FpOperand.fp32(a);
    FpOperand q = FpOperand.fp32(b);
    FpOperand s = FpOperand.fp32(c);

    // decode: the product as two carry-save rows, the addend aligned to it (registered with stages >= 2)
    Bool productNegative = p.negative().xor(q.negative());
    List<UInt> rows = productRows(p.significand(), q.significand());
    UInt productRow0 = decode("productRow0", rows.get(0));
    UInt productRow1 = decode("productRow1", rows.get(1));
    // r = 49 − δ = effA + effB − effC − 101: the addend's right shift from the window's top
    SInt effSum = p.effectiveField().resize(EXPONENT_BITS - 1).add(q.effectiveField().resize(EXPONENT_BITS - 1))
        .toSInt();
    SInt alignShift = wire("alignShift", effSum.sub(s.effectiveField().resize(EXPONENT_BITS).toSInt())
        .sub(sintLit(101, EXPONENT_BITS)));
    Bool addendDominates = wire("addendDominates", alignShift.lt(0).and(s.zero().not()));
    UInt shift = mux(alignShift.lt(0), uintLit(0, 7), mux(alignShift.gt(ADDEND_BITS),
        uintLit(ADDEND_BITS, 7), alignShift.resize(7).asUInt()));
    UInt spread = wire("spread", s.significand().shiftLeft(ADDEND_BITS).shiftRight(shift));
    Bool sticky = spread.lsbs(24).orR();
    UInt addend = decode("addend", spread.msbs(ADDEND_BITS).or(sticky.asUInt().resize(ADDEND_BITS)));
    Bool subtract = decode("subtract", productNegative.ne(s.negative()));
    Bool lateProductNegative = decode("productNegative", productNegative);
    Bool lateAddendNegative = decode("addendNegative", s.negative());
    SInt gridExponent = decode("gridExponent", effSum.sub(sintLit(303, EXPONENT_BITS)).resize(EXPONENT_BITS));

    // the exact window sum as S0 = P + B and S1 = P + B + 1, B = C, or ~C for a subtraction
    UInt product0 = productRow0.resize(SUM_BITS - 3).shiftLeft(3);
    UInt product1 = productRow1.resize(SUM_BITS - 3).shiftLeft(3);
    UInt addendTerm = addend.resize(SUM_BITS);
    List<UInt> sumRows = MxDotTerms.carrySaveRows(List.of(product0, product1,
        mux(subtract, addendTerm.not(), addendTerm)));
    UInt[] sums = compoundSum(sumRows.get(0), sumRows.get(1));
    UInt sum = wire("windowSum", sums[0]);
    UInt sumPlusOne = wire("windowSumPlusOne", sums[1].lsbs(SUM_BITS - 1));
    // subtracting, S0 = P − C − 1 (mod 2^78): negative when C >= P, and then |P − C| = ~S0; else P − C = S1
    Bool sumSubtract = stage("subtract", subtract);
    Bool addendLarger = sumSubtract.and(sum.bit(SUM_BITS - 1));
    UInt magnitude = wire("sumMagnitude", mux(addendLarger, sum.not().lsbs(SUM_BITS - 1),
        mux(sumSubtract, sumPlusOne, sum.lsbs(SUM_BITS - 1))));
    // an exact cancellation (C = P) is +0
    Bool negative = mux(addendLarger, stage("addendNegative", lateAddendNegative).and(magnitude.orR()),
        stage("productNegative", lateProductNegative));

    FloatRounder rounder = instance("rounder", new FloatRounder(new FloatRounder.Config(SUM_BITS - 1,
        EXPONENT_BITS, FpLayout.FP32, RoundMode.NEAREST_EVEN, false), config.stages() >= 3, true));
    rounder.negative.set(negative);
    rounder.magnitude.set(magnitude);
    rounder.exponent.set(stage("gridExponent", gridExponent));

    Bool productZero = p.zero().or(q.zero());
    Bool productInfinite = p.infinite().or(q.infinite());
    Bool nan = p.nan().or(q.nan()).or(s.nan()).or(p.infinite().and(q.zero())).or(q.infinite().and(p.zero()))
        .or(productInfinite.and(s.infinite()).and(productNegative.ne(s.negative())));
    Bool infiniteNegative = mux(productInfinite, productNegative, s.negative());
    UInt zero = cat(productNegative.and(s.negative()), uintLit(0, 31)).asUInt();
    // a zero product: c, or the signed zero when c is zero too
    UInt passThrough = mux(productZero.and(s.zero()), zero, c);
    UInt special = mux(nan, uintLit(CANONICAL_NAN, 32), mux(productInfinite.or(s.infinite()),
        cat(infiniteNegative, uintLit(0x7F800000L, 31)).asUInt(), passThrough));
    Bool useSpecial = late("useSpecial", nan.or(productInfinite).or(s.infinite()).or(productZero)
        .or(addendDominates));
    setResult(wire("value", mux(useSpecial, late("special", special), rounder.code)));
  }

  /**
   * {@code sigA · sigB} as two rows (each {@link #ROW_BITS} bits) whose sum is the product: the 24
   * partial products reduced by 3:2 carry-save levels, no carry propagated along a row.
   */
  private static List<UInt> productRows(UInt sigA, UInt sigB) {
    List<UInt> partials = new ArrayList<>();
    UInt none = uintLit(0, sigA.width());
    for (int i = 0; i < sigB.width(); i++) {
      partials.add(mux(sigB.bit(i), sigA, none).resize(ROW_BITS - i).shiftLeft(i));
    }
    return MxDotTerms.carrySaveRows(partials);
  }

  /**
   * {@code x + y} and {@code x + y + 1} (mod 2^w) as carry-select sums: the low {@link #LOW_BITS} bits
   * with and without a carry-in, each with its carry out, and the high bits with and without a carry
   * (four {@link PrefixAdder}s side by side), registered with the exact-sum register (stages >= 1); the
   * low parts' carries select the high parts after it. A 78-bit prefix sum in one cycle took 5.9 ns
   * (ABC maps the prefix network partly as a ripple).
   */
  private UInt[] compoundSum(UInt x, UInt y) {
    int w = x.width();
    UInt lowX = x.lsbs(LOW_BITS).resize(LOW_BITS + 1);
    UInt lowY = y.lsbs(LOW_BITS).resize(LOW_BITS + 1);
    UInt low = stage("sumLow", PrefixAdder.sum(lowX, lowY, false));
    UInt lowPlusOne = stage("sumLowPlusOne", PrefixAdder.sum(lowX, lowY, true));
    UInt highX = x.msbs(w - LOW_BITS);
    UInt highY = y.msbs(w - LOW_BITS);
    UInt high = stage("sumHigh", PrefixAdder.add(highX, highY));
    UInt highPlusOne = stage("sumHighPlusOne", PrefixAdder.sum(highX, highY, true));
    return new UInt[] {
        cat(mux(low.bit(LOW_BITS), highPlusOne, high), low.lsbs(LOW_BITS)).asUInt(),
        cat(mux(lowPlusOne.bit(LOW_BITS), highPlusOne, high), lowPlusOne.lsbs(LOW_BITS)).asUInt()};
  }

  /** {@code v} delayed like the rounder's output (a bypass of the decode, exact-sum and rounder registers). */
  private <T extends HwValue> T late(String name, T v) {
    T e = stage(name, decode(name, v));
    return config.stages() >= 3 ? regNext("round_" + name, e) : e;
  }

  /** {@code v}, or {@code v} one cycle later with the decode register (stages >= 2). */
  private <T extends HwValue> T decode(String name, T v) {
    return config.stages() >= 2 ? regNext("decode_" + name, v) : v;
  }

  /** Registers {@code fp32-fma}. */
  public static final class Generator extends DeclaredGenerator {
    public Generator() {
      super("fp32-fma", "FP32 fused multiply-add a·b + c, one rounding, bit-exact with numerics Fma.fp32Bits",
          generatorParams(), factory(Fp32Fma::new));
    }
  }
}
