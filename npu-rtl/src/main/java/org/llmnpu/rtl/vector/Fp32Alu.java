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
 * One FP32 (IEEE binary32) lane of the vector DSP: {@code result = a op b} for {@code op}
 * {@link #ADD} 0, {@link #SUB} 1, {@link #MUL} 2 (3 is reserved and gives 0). Every result is
 * bit-exact with Java {@code float} arithmetic ({@code a + b}, {@code a - b}, {@code a * b}),
 * except that every NaN result is the canonical quiet NaN 0x7FC00000.
 *
 * <p>Numerics. A finite operand is {@code sig · 2^(eff − 150)} with the 24-bit significand
 * {@code sig} (hidden bit set for normals) and {@code eff = max(field, 1)}. MUL: the exact 48-bit
 * product of the significands with exponent {@code effA + effB − 300}. ADD/SUB (sign-magnitude):
 * the operands are ordered so that |big| ≥ |small|; the big significand is placed in a 27-bit
 * window (3 bits below its LSB), the small one is shifted right by {@code effBig − effSmall}
 * into the same window and the OR of every bit shifted out is jammed into the window's LSB
 * (guard/round/sticky); the 28-bit sum or difference is then rounded. This is correctly rounded:
 * the jammed value agrees with the exact one in every bit above the window LSB and in whether
 * anything nonzero lies at or below it, and the rounding point is always at least two bits above
 * the window LSB (a difference with a shift of 2 or more keeps its leading bit at most one place
 * lower; with a shift of 0 or 1 nothing is shifted out and the difference is exact). One shared
 * {@link FloatRounder} rounds the exact or jammed value once (RNE, gradual underflow, overflow to
 * ±∞). An exactly zero sum of opposite-signed operands is +0; equal signs keep the sign
 * (−0 + −0 = −0); products carry the XOR of the signs. Specials: any NaN operand, ∞ − ∞ and
 * ∞ · 0 give 0x7FC00000; otherwise an ∞ operand gives that ∞ (with the product's sign for MUL).
 *
 * <p>Latency {@code stages} (0..3): 0 is purely combinational (a register stage, if any, belongs to
 * the instantiating datapath); 1 registers the exact value before the rounder; 2 also registers the
 * decoded operands (ordered by magnitude, with the alignment distance) and the product as four
 * 24×6-bit partial products, added in the next stage; 3 also splits the rounder after its
 * normalization.
 */
public final class Fp32Alu extends HwModule {
  public static final int ADD = 0;
  public static final int SUB = 1;
  public static final int MUL = 2;

  private static final long CANONICAL_NAN = 0x7FC00000L;
  /** Rounder input: the 48-bit product (the 28-bit sum fits in it). */
  private static final int MAGNITUDE_BITS = 48;
  /** Significand (24 bits) plus guard, round and sticky positions. */
  private static final int WINDOW_BITS = 27;
  private static final int EXPONENT_BITS = 10;

  public final UInt op = in(uint(2));
  public final UInt a = in(uint(32));
  public final UInt b = in(uint(32));
  public final UInt result = out(uint(32));

  private final int stages;

  /** Combinational (latency 0). */
  public Fp32Alu() {
    this(0);
  }

  /** With {@code split}, a pipeline register between the exact value and the rounder: latency 1. */
  public Fp32Alu(boolean split) {
    this(split ? 1 : 0);
  }

  /** With {@code stages} internal pipeline registers, 0..3 (see the class comment): latency {@code stages}. */
  public Fp32Alu(int stages) {
    if (stages < 0 || stages > 3) {
      throw new IllegalArgumentException("stages must be in 0..3, got " + stages);
    }
    this.stages = stages;
    FpOperand p = FpOperand.fp32(a);
    FpOperand q = FpOperand.fp32(b);
    Bool isSub = op.eq(SUB);
    Bool isMul = op.eq(MUL);

    // order the addends by magnitude (the 31 low bits order finite magnitudes)
    Bool qNegative = q.negative().xor(isSub);
    Bool swap = wire("swap", b.lsbs(31).gt(a.lsbs(31)));
    UInt bigSig = decode("bigSig", mux(swap, q.significand(), p.significand()));
    UInt smallSig = decode("smallSig", mux(swap, p.significand(), q.significand()));
    UInt bigEff = mux(swap, q.effectiveField(), p.effectiveField());
    UInt smallEff = mux(swap, p.effectiveField(), q.effectiveField());
    Bool bigNegative = decode("bigNegative", mux(swap, qNegative, p.negative()));
    Bool sameSign = decode("sameSign", p.negative().eq(qNegative));

    // align the small significand into the window; shifts of 31 and more leave only sticky bits
    UInt distance = wire("distance", bigEff.sub(smallEff));
    UInt shift = decode("shift", mux(distance.gt(31), uintLit(31, 5), distance.resize(5)));
    UInt shifted = wire("shifted", smallSig.shiftLeft(3 + WINDOW_BITS).shiftRight(shift));
    Bool sticky = shifted.lsbs(WINDOW_BITS).orR();
    UInt alignedSmall = wire("alignedSmall", shifted.msbs(WINDOW_BITS).or(sticky.asUInt().resize(WINDOW_BITS)));
    UInt alignedBig = bigSig.shiftLeft(3);
    UInt sum = wire("sum", mux(sameSign, alignedBig.addExpand(alignedSmall),
        alignedBig.sub(alignedSmall).resize(WINDOW_BITS + 1)));
    // x + (−x) is +0 under RNE; equal signs keep the sign of the operands
    Bool sumNegative = bigNegative.and(sameSign.or(sum.orR()));
    SInt sumExponent = decode("sumExponent", bigEff.resize(EXPONENT_BITS - 1).toSInt().add(sintLit(-153, EXPONENT_BITS)));

    // exact product: sigA · sigB · 2^(effA + effB − 300); with stages >= 2 four registered partial products
    Bool productNegative = decode("productNegative", p.negative().xor(q.negative()));
    UInt product;
    if (stages >= 2) {
      // four 24×6 pieces (24×8 pieces took 5.8 ns in the 16-lane DSP, where lane 0's operands also feed BCAST)
      UInt sum4 = uintLit(0, MAGNITUDE_BITS);
      for (int piece = 0; piece < 4; piece++) {
        UInt part = decode("product" + piece, p.significand().mul(q.significand().slice(6 * piece + 5, 6 * piece)));
        sum4 = sum4.add(part.resize(MAGNITUDE_BITS).shiftLeft(6 * piece).resize(MAGNITUDE_BITS));
      }
      product = wire("product", sum4);
    } else {
      product = wire("product", p.significand().mul(q.significand()));
    }
    SInt productExponent = decode("productExponent", p.effectiveField().resize(EXPONENT_BITS - 1).toSInt()
        .add(q.effectiveField().resize(EXPONENT_BITS - 1).toSInt()).add(sintLit(-300, EXPONENT_BITS)));
    Bool mulLate = decode("isMul", isMul);

    FloatRounder rounder = instance("rounder", new FloatRounder(new FloatRounder.Config(MAGNITUDE_BITS,
        EXPONENT_BITS, FpLayout.FP32, RoundMode.NEAREST_EVEN, false), stages >= 3, true));
    rounder.negative.set(stage("negative", mux(mulLate, productNegative, sumNegative)));
    rounder.magnitude.set(stage("magnitude", mux(mulLate, product, sum.resize(MAGNITUDE_BITS))));
    rounder.exponent.set(stage("exponent", mux(mulLate, productExponent, sumExponent)));

    Bool anyNan = p.nan().or(q.nan());
    Bool anyInfinite = bypass("anyInfinite", decode("anyInfinite", p.infinite().or(q.infinite())));
    Bool sumNan = anyNan.or(p.infinite().and(q.infinite()).and(p.negative().eq(qNegative).not()));
    Bool productNan = anyNan.or(p.infinite().and(q.zero())).or(q.infinite().and(p.zero()));
    Bool infiniteNegative = bypass("infiniteNegative", decode("infiniteNegative",
        mux(isMul, p.negative().xor(q.negative()), mux(p.infinite(), p.negative(), qNegative))));
    UInt nan = uintLit(CANONICAL_NAN, 32);
    UInt infinity = cat(infiniteNegative, uintLit(0x7F800000L, 31)).asUInt();
    Bool resultNan = bypass("resultNan", decode("resultNan", mux(isMul, productNan, sumNan)));
    UInt arithmetic = mux(resultNan, nan, mux(anyInfinite, infinity, rounder.code));
    result.set(mux(bypass("reserved", decode("reserved", op.eq(3))), uintLit(0, 32), arithmetic));
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

  @Override
  public String moduleName() {
    return stages == 0 ? "Fp32Alu" : stages == 1 ? "Fp32Alu_split" : "Fp32Alu_s" + stages;
  }

  /** Registers {@code fp32-alu}. */
  public static final class Generator extends DeclaredGenerator {
    public Generator() {
      super("fp32-alu", "FP32 add/sub/mul, bit-exact with Java float (RNE, subnormals, canonical NaN)",
          List.of(FpStages.param()), p -> new Fp32Alu(p.getInt("stages")));
    }
  }
}
