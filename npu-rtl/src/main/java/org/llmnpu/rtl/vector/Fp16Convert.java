package org.llmnpu.rtl.vector;

import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.sintLit;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.gen.DeclaredGenerator;
import org.llmnpu.rtl.mx.FloatRounder;
import org.llmnpu.rtl.mx.FpLayout;
import org.llmnpu.rtl.mx.RoundMode;

/**
 * One conversion lane of the vector DSP between FP16 (IEEE binary16), FP32 (binary32) and
 * scaled integers, selected by {@code op} (3 bits); 5..7 are reserved and give 0. FP16 operands
 * are read from the low 16 bits of {@code a} / {@code b} (upper bits ignored) and FP16 results
 * are returned in the low 16 bits of {@code result} (upper 16 bits 0). Every result is bit-exact
 * with {@code org.llmnpu.numerics.fp16.Fp16}:
 * <ul>
 *   <li>{@link #WIDEN} 0: FP16 {@code a} → FP32, exact ({@code Fp16.toFloat}); NaN gives the
 *       canonical 0x7FC00000.</li>
 *   <li>{@link #NARROW} 1: FP32 {@code a} · 2^k → FP16 with {@code k} = {@code b} as a signed
 *       32-bit integer, rounded once ({@code Fp16.fromDouble(Math.scalb((double) a, k))};
 *       {@code k = 0} is {@code Fp16.fromFloat}).</li>
 *   <li>{@link #SCALB16} 2: FP16 {@code a} · 2^k → FP16, rounded once ({@code Fp16.scalb}).</li>
 *   <li>{@link #TO_INT} 3: {@code Fp16.toInt(a, b, format)}: {@code q = saturate(rint(a · b))}
 *       with the FP16 inverse scale {@code b}; the 32-bit two's-complement result is
 *       sign-extended for INT8/INT16.</li>
 *   <li>{@link #FROM_INT} 4: {@code Fp16.fromInt(a, b)}: the signed 32-bit integer {@code a}
 *       times the FP16 scale {@code b}, rounded once to FP16.</li>
 * </ul>
 * {@code format} selects the integer range of TO_INT: {@link #INT8} 0, {@link #INT16} 1,
 * {@link #INT32} 2 (3 behaves as INT32).
 *
 * <p>Numerics. Every FP16 result is an exact value {@code (−1)^s · magnitude · 2^e} rounded once
 * by one shared {@link FloatRounder} (43-bit magnitude, RNE, gradual underflow, overflow to ±∞,
 * a zero keeps its sign): NARROW feeds the 24-bit FP32 significand with exponent
 * {@code eff − 150 + k}, SCALB16 the 11-bit FP16 significand with {@code eff − 25 + k}, FROM_INT
 * the exact 43-bit product |q| · significand with {@code eff − 25} and the sign
 * {@code (q < 0) XOR sign(b)} (so 0 times a negative scale is −0, as in double arithmetic).
 * {@code k} is saturated to −1024..1023 first, which cannot change a result (any nonzero FP32
 * value times 2^±1023 is far outside the FP16 range). WIDEN rounds the FP16 significand into
 * FP32 with a second, small rounder (always exact). TO_INT forms the exact 22-bit product of the
 * significands with exponent {@code e = effA + effB − 50} (−48..10): for {@code e ≥ 0} the
 * integer is the product shifted left (below 2^32); otherwise it is shifted right by
 * {@code min(−e, 24)} and rounded half to even from the half bit and the sticky OR, then the
 * magnitude is clamped to 2^(n−1) − 1 (positive) or 2^(n−1) (negative) and negated if negative.
 * Specials: a NaN operand gives 0x7E00 (FP16 results), 0x7FC00000 (WIDEN) or 0 (TO_INT); ∞ keeps
 * its sign (NARROW, SCALB16, WIDEN; any k); TO_INT saturates ∞ products and gives 0 for ∞ · 0;
 * FROM_INT gives NaN for an ∞ scale with q = 0 and ±∞ for an ∞ scale with q ≠ 0.
 *
 * <p>Latency {@code stages} (0..3): 0 is purely combinational; 1 registers the exact value before
 * the FP16 rounder; 2 also registers the decoded operands, the scaled exponents, WIDEN's result, the
 * special cases, TO_INT's 22-bit product and FROM_INT's product as four 16×6/16×5-bit partial
 * products of q's one's complement (|q|·s = (q XOR sign)·s + sign·s, the sum in the next stage);
 * 3 also splits the FP16 rounder after its normalization and TO_INT after its rounding.
 */
public final class Fp16Convert extends HwModule {
  public static final int WIDEN = 0;
  public static final int NARROW = 1;
  public static final int SCALB16 = 2;
  public static final int TO_INT = 3;
  public static final int FROM_INT = 4;

  public static final int INT8 = 0;
  public static final int INT16 = 1;
  public static final int INT32 = 2;

  private static final int FP16_NAN = 0x7E00;
  private static final long FP32_NAN = 0x7FC00000L;
  /** |int32| (32 bits) times an 11-bit significand. */
  private static final int MAGNITUDE_BITS = 43;
  private static final int EXPONENT_BITS = 12;
  /** {@code k} is saturated to this many signed bits. */
  private static final int SCALE_BITS = 11;
  /** Right shifts of the 22-bit TO_INT product beyond this leave less than 1/4: the integer is 0. */
  private static final int MAX_RIGHT_SHIFT = 24;

  public final UInt op = in(uint(3));
  public final UInt format = in(uint(2));
  public final UInt a = in(uint(32));
  public final UInt b = in(uint(32));
  public final UInt result = out(uint(32));

  private final int stages;

  /** Combinational (latency 0). */
  public Fp16Convert() {
    this(0);
  }

  /**
   * With {@code split}, a pipeline register between the exact value and the FP16 rounder (WIDEN
   * finishes before it; TO_INT registers its shifted product and rounds, clamps and negates after
   * it): latency 1.
   */
  public Fp16Convert(boolean split) {
    this(split ? 1 : 0);
  }

  /** With {@code stages} internal pipeline registers, 0..3 (see the class comment): latency {@code stages}. */
  public Fp16Convert(int stages) {
    if (stages < 0 || stages > 3) {
      throw new IllegalArgumentException("stages must be in 0..3, got " + stages);
    }
    this.stages = stages;
    FpOperand x = FpOperand.fp16(a.lsbs(16));
    FpOperand s = FpOperand.fp16(b.lsbs(16));
    Bool isNarrow = op.eq(NARROW);
    Bool isScalb = op.eq(SCALB16);

    // FP32 operand of NARROW
    UInt field32 = a.slice(30, 23);
    UInt fraction32 = a.lsbs(23);
    Bool normal32 = field32.orR();
    Bool special32 = field32.andR();
    Bool nan32 = special32.and(fraction32.orR());
    Bool infinite32 = special32.and(fraction32.orR().not());
    UInt significand32 = cat(normal32, fraction32).asUInt();
    UInt effective32 = mux(normal32, field32, uintLit(1, 8));

    // the scale exponent k of NARROW and SCALB16, saturated
    SInt k = wire("k", b.asSInt().saturate(SCALE_BITS).resize(EXPONENT_BITS));
    SInt narrowExponent = effective32.resize(EXPONENT_BITS - 1).toSInt().add(k).add(sintLit(-150, EXPONENT_BITS));
    SInt scalbExponent = x.effectiveField().resize(EXPONENT_BITS - 1).toSInt().add(k)
        .add(sintLit(-25, EXPONENT_BITS));

    // FROM_INT: |q| · significand(b) · 2^(effB − 25)
    Bool qNegative = a.bit(31);
    UInt intProduct;
    Bool qZero;
    if (stages >= 2) {
      // |q|·s = (q XOR sign)·s + sign·s, from four registered partial products (each 16-bit half of the one's
      // complement times s[5:0] and s[10:6]: short carry chains; 32-bit pieces times 4 or 3 bits of s, with the
      // sign's fan-out before them, took 5.8 ns) and the correction, added in the next stage
      UInt ones = a.xor(mux(qNegative, uintLit(0xFFFFFFFFL, 32), uintLit(0, 32)));
      UInt sig = s.significand();
      UInt sum = decode("intCorrection", mux(qNegative, sig, uintLit(0, 11))).resize(MAGNITUDE_BITS);
      for (int half = 0; half < 2; half++) {
        UInt halfOnes = wire("intOnes" + half, ones.slice(16 * half + 15, 16 * half));
        for (int piece = 0; piece < 2; piece++) {
          UInt part = decode("intProduct" + (2 * half + piece), halfOnes.mul(piece == 0 ? sig.lsbs(6) : sig.msbs(5)));
          sum = sum.add(part.resize(MAGNITUDE_BITS).shiftLeft(16 * half + 6 * piece).resize(MAGNITUDE_BITS));
        }
      }
      intProduct = wire("intProduct", sum);
      qZero = a.orR().not();
    } else {
      UInt qMagnitude = wire("qMagnitude", mux(qNegative, uintLit(0, 32).sub(a), a));
      intProduct = wire("intProduct", qMagnitude.mul(s.significand()));
      qZero = qMagnitude.orR().not();
    }
    SInt intExponent = s.effectiveField().resize(EXPONENT_BITS - 1).toSInt().add(sintLit(-25, EXPONENT_BITS));
    Bool intNegative = qNegative.xor(s.negative());

    FloatRounder rounder = instance("rounder", new FloatRounder(new FloatRounder.Config(MAGNITUDE_BITS,
        EXPONENT_BITS, FpLayout.FP16, RoundMode.NEAREST_EVEN, false), stages >= 3, true));
    rounder.negative.set(stage("negative", decode("negative", mux(isNarrow, a.bit(31),
        mux(isScalb, x.negative(), intNegative)))));
    UInt floatMagnitude = decode("floatMagnitude", mux(isNarrow, significand32, x.significand().resize(24)));
    Bool isFromInt = decode("isFromInt", isNarrow.not().and(isScalb.not()));
    rounder.magnitude.set(stage("magnitude", mux(isFromInt, intProduct, floatMagnitude.resize(MAGNITUDE_BITS))));
    rounder.exponent.set(stage("exponent", decode("exponent", mux(isNarrow, narrowExponent,
        mux(isScalb, scalbExponent, intExponent)))));

    // the special cases of the rounded results, decided before the split register
    UInt nan16 = uintLit(FP16_NAN, 16);
    Bool specialNan = mux(isNarrow, nan32, mux(isScalb, x.nan(), s.nan().or(s.infinite().and(qZero))));
    Bool specialInfinite = mux(isNarrow, infinite32, mux(isScalb, x.infinite(), s.infinite()));
    UInt infinity = mux(isNarrow, cat(a.bit(31), uintLit(0x7C00, 15)).asUInt(),
        mux(isScalb, infinity(x), cat(intNegative, uintLit(0x7C00, 15)).asUInt()));
    UInt rounded = mux(bypass("specialNan", decode("specialNan", specialNan)), nan16,
        mux(bypass("specialInfinite", decode("specialInfinite", specialInfinite)),
            bypass("infinity", decode("infinity", infinity)), rounder.code));

    // WIDEN: the FP16 value rounded (exactly) into FP32
    FloatRounder widener = instance("widener", new FloatRounder(new FloatRounder.Config(11, 7, FpLayout.FP32,
        RoundMode.NEAREST_EVEN, false)));
    widener.negative.set(x.negative());
    widener.magnitude.set(x.significand());
    widener.exponent.set(x.effectiveField().resize(6).toSInt().add(sintLit(-25, 7)));
    UInt widen = mux(x.nan(), uintLit(FP32_NAN, 32),
        mux(x.infinite(), cat(x.negative(), uintLit(0x7F800000L, 31)).asUInt(), widener.code));

    UInt toInt = wire("toInt", toInteger(x, s));

    // WIDEN is complete before the split register; TO_INT rounds and clamps after it
    UInt widened = bypass("widened", decode("widened", mux(op.eq(WIDEN), widen, uintLit(0, 32))));
    Bool isToInt = bypass("isToInt", decode("isToInt", op.eq(TO_INT)));
    Bool isRounded = bypass("isRounded", decode("isRounded", op.eq(NARROW).or(isScalb).or(op.eq(FROM_INT))));
    result.set(mux(isRounded, rounded.resize(32), mux(isToInt, toInt, widened)));
  }

  /** {@code v} registered like the rounder's output (a bypass of the rounder): after the exact-value register, and after the rounder's own with stages >= 3. */
  private <T extends org.llmnpu.hdl.HwValue> T bypass(String name, T v) {
    T e = stage(name, v);
    return stages >= 3 ? regNext("round_" + name, e) : e;
  }

  /** {@code v}, or {@code v} one cycle later with the exact-value register (stages >= 1). */
  private <T extends org.llmnpu.hdl.HwValue> T stage(String name, T v) {
    return stages >= 1 ? regNext("split_" + name, v) : v;
  }

  /** {@code v}, or {@code v} one cycle later with the decode register (stages >= 2). */
  private <T extends org.llmnpu.hdl.HwValue> T decode(String name, T v) {
    return stages >= 2 ? regNext("decode_" + name, v) : v;
  }

  /**
   * {@code Fp16.toInt(x, invScale, format)} as a 32-bit two's-complement code. With the split
   * register the exact product's shifts are registered and the rounding, clamp and negation follow.
   */
  private UInt toInteger(FpOperand x, FpOperand s) {
    UInt product = decode("scaledProduct", wire("scaledProduct", x.significand().mul(s.significand())));
    SInt exponent = decode("scaledExponent", wire("scaledExponent", x.effectiveField().resize(6).toSInt()
        .add(s.effectiveField().resize(6).toSInt()).add(sintLit(-50, 7))));
    Bool negative = stage("toIntNegative", decode("toIntNegative", x.negative().xor(s.negative())));

    // e >= 0: exact integer below 2^32
    UInt left = stage("toIntLeft", product.resize(33).shiftLeft(exponent.resize(4).asUInt()));
    // e < 0: shift right, round half to even
    SInt distance = sintLit(0, 7).sub(exponent);
    UInt rightShift = mux(distance.gt(MAX_RIGHT_SHIFT), uintLit(MAX_RIGHT_SHIFT, 5), distance.resize(5).asUInt());
    UInt shifted = wire("scaledShifted", stage("toIntShifted",
        product.shiftLeft(MAX_RIGHT_SHIFT).shiftRight(rightShift)));
    Bool rightOfPoint = stage("toIntRight", exponent.isNegative());
    UInt integer = shifted.msbs(22);
    Bool half = shifted.bit(MAX_RIGHT_SHIFT - 1);
    Bool sticky = shifted.lsbs(MAX_RIGHT_SHIFT - 1).orR();
    Bool roundUp = half.and(sticky.or(integer.bit(0)));
    UInt right = integer.addExpand(roundUp.asUInt());
    UInt magnitude = wire("scaledMagnitude", mux(rightOfPoint, right.resize(33), left));

    // clamp to the format: 2^(n−1) − 1 above zero, 2^(n−1) below
    UInt fmt = stage("toIntFormat", decode("toIntFormat", format));
    UInt positiveLimit = mux(fmt.eq(INT8), uintLit(127, 33),
        mux(fmt.eq(INT16), uintLit(32767, 33), uintLit(0x7FFFFFFFL, 33)));
    UInt limit = positiveLimit.add(negative.asUInt().resize(33));
    Bool infiniteProduct = stage("toIntInfinite", decode("toIntInfinite", x.infinite().and(s.zero().not())
        .or(s.infinite().and(x.zero().not()))));
    Bool nanProduct = stage("toIntNan", decode("toIntNan", x.nan().or(s.nan()).or(x.infinite().and(s.zero()))
        .or(s.infinite().and(x.zero()))));
    if (stages >= 3) {
      // the rounded magnitude registered; the clamp and the negation then run side by side
      UInt m = regNext("round_toIntMagnitude", magnitude);
      UInt l = regNext("round_toIntLimit", limit);
      Bool n = regNext("round_toIntNegative", negative);
      Bool overflow = regNext("round_toIntInfinite", infiniteProduct).or(m.gt(l));
      UInt positive = mux(overflow, l, m);
      UInt negated = mux(overflow, uintLit(0, 33).sub(l), uintLit(0, 33).sub(m));
      return mux(regNext("round_toIntNan", nanProduct), uintLit(0, 32), mux(n, negated, positive).resize(32));
    }
    UInt clamped = mux(infiniteProduct.or(magnitude.gt(limit)), limit, magnitude);
    UInt signed = mux(negative, uintLit(0, 33).sub(clamped), clamped).resize(32);
    return mux(nanProduct, uintLit(0, 32), signed);
  }

  /** ±∞ with the sign of {@code x}. */
  private static UInt infinity(FpOperand x) {
    return cat(x.negative(), uintLit(0x7C00, 15)).asUInt();
  }

  @Override
  public String moduleName() {
    return stages == 0 ? "Fp16Convert" : stages == 1 ? "Fp16Convert_split" : "Fp16Convert_s" + stages;
  }

  /** Registers {@code fp16-convert}. */
  public static final class Generator extends DeclaredGenerator {
    public Generator() {
      super("fp16-convert", "FP16 <-> FP32 / scaled INT8/16/32 conversions and FP16 scalb, bit-exact with Fp16 "
          + "(RNE, subnormals, canonical NaN)", List.of(FpStages.param()), p -> new Fp16Convert(p.getInt("stages")));
    }
  }
}
