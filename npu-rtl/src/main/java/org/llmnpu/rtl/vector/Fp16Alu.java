package org.llmnpu.rtl.vector;

import static org.llmnpu.hdl.Hw.boolLit;
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
import org.llmnpu.hdl.Vec;
import org.llmnpu.hdl.gen.DeclaredGenerator;
import org.llmnpu.hdl.gen.ParamSpec;
import org.llmnpu.rtl.mx.FloatRounder;
import org.llmnpu.rtl.mx.FpLayout;
import org.llmnpu.rtl.mx.RoundMode;

/**
 * SIMD FP16 (IEEE binary16) ALU of the vector DSP: {@code lanes} lanes, each with operands
 * {@code a_i}, {@code b_i} and result {@code result_i}; one {@code op} (3 bits) for all lanes:
 * {@link #ADD} 0, {@link #SUB} 1, {@link #MUL} 2, {@link #MIN} 3, {@link #MAX} 4, {@link #LT} 5,
 * {@link #EQ} 6 (7 is reserved and gives 0). Every result is bit-exact with
 * {@code org.llmnpu.numerics.fp16.Fp16} ({@code add}, {@code sub}, {@code mul}, {@code min},
 * {@code max}; {@code lt}/{@code eq} as 0x0001 for true and 0x0000 for false).
 *
 * <p>Numerics. ADD/SUB: each finite operand is an integer multiple of 2^-24 below 2^16, so both
 * significands are shifted to that common quantum ({@code sig << (max(field, 1) − 1)}, 41 bits)
 * and added or subtracted exactly in 42 bits (sign-magnitude: the larger minus the smaller);
 * MUL: the exact 22-bit product of the 11-bit significands with exponent
 * {@code effA + effB − 50}. One shared {@link FloatRounder} per lane rounds the exact value once
 * (RNE, gradual underflow, overflow to ±∞). An exactly zero sum of opposite-signed operands is
 * +0; equal signs keep the sign (−0 + −0 = −0); products carry the XOR of the signs. Specials:
 * any NaN operand, ∞ − ∞ and ∞ · 0 give the canonical NaN 0x7E00; otherwise an ∞ operand gives
 * that ∞ (with the product's sign for MUL). MIN/MAX are IEEE 754-2019 minimumNumber /
 * maximumNumber: a NaN operand is ignored (two NaNs give 0x7E00), −0 &lt; +0, and the selected
 * operand is passed unchanged. LT/EQ are IEEE comparisons: false with a NaN, +0 == −0.
 *
 * <p>Latency {@code latency} cycles plus {@code stages} internal registers (0..3): 0 is purely
 * combinational; {@code latency} 1 registers every {@code result_i} (result of the operands applied
 * before clock edge k visible after edge k); internal register 1 sits between the exact
 * sum/product and the rounder, 2 also after the decode (the aligned operands, the 22-bit product,
 * min/max/compare results and special cases registered), 3 also splits the rounder after its
 * normalization.
 * Throughput one vector per cycle.
 */
public final class Fp16Alu extends HwModule {
  public static final int ADD = 0;
  public static final int SUB = 1;
  public static final int MUL = 2;
  public static final int MIN = 3;
  public static final int MAX = 4;
  public static final int LT = 5;
  public static final int EQ = 6;

  private static final int CANONICAL_NAN = 0x7E00;
  /** Width of an operand aligned to the 2^-24 quantum (11-bit significand shifted by up to 30). */
  private static final int ALIGNED_BITS = 41;
  private static final int EXACT_BITS = ALIGNED_BITS + 1;
  private static final int EXPONENT_BITS = 8;

  /**
   * Lanes (1..64), output latency (0 or 1), and {@code stages} internal pipeline registers (0..3;
   * see the class comment), each one more cycle of latency.
   */
  public record Config(int lanes, int latency, int stages) {
    /** Without internal registers. */
    public Config(int lanes, int latency) {
      this(lanes, latency, 0);
    }

    /** With {@code split}: one internal register, between the exact value and its rounding. */
    public Config(int lanes, int latency, boolean split) {
      this(lanes, latency, split ? 1 : 0);
    }

    public Config {
      if (lanes < 1 || lanes > 64) {
        throw new IllegalArgumentException("lanes must be in 1..64, got " + lanes);
      }
      if (latency < 0 || latency > 1) {
        throw new IllegalArgumentException("latency must be 0 or 1, got " + latency);
      }
      if (stages < 0 || stages > 3) {
        throw new IllegalArgumentException("stages must be in 0..3, got " + stages);
      }
    }
  }

  public final UInt op = in(uint(3));
  public final Vec<UInt> a;
  public final Vec<UInt> b;
  public final Vec<UInt> result;
  private final Config config;

  public Fp16Alu(Config c) {
    config = c;
    a = in(Vec.of(c.lanes(), () -> uint(16)));
    b = in(Vec.of(c.lanes(), () -> uint(16)));
    result = out(Vec.of(c.lanes(), () -> uint(16)));
    for (int i = 0; i < c.lanes(); i++) {
      UInt r = wire("lane_" + i, lane(i, a.get(i), b.get(i)));
      result.get(i).set(c.latency() == 1 ? regNext("result_q_" + i, r) : r);
    }
  }

  /** The magnitude of a finite FP16 operand in units of 2^-24 (exact). */
  private static UInt aligned(FpOperand x) {
    return x.significand().resize(ALIGNED_BITS).shiftLeft(x.effectiveField().sub(1));
  }

  /** IEEE order key of an FP16 code: monotone in the value for non-NaN codes, with −0 just below +0. */
  private static UInt orderKey(UInt x) {
    return mux(x.bit(15), x.not(), x.or(uintLit(0x8000, 16)));
  }

  private UInt lane(int i, UInt x, UInt y) {
    FpOperand p = FpOperand.fp16(x);
    FpOperand q = FpOperand.fp16(y);
    Bool isSub = op.eq(SUB);
    Bool isMul = op.eq(MUL);
    Bool mulP = product("isMul_" + i, isMul);

    // decode stage (registered with stages >= 2): aligned operands, product, specials, min/max/compare
    Bool pNegative = product("negativeA_" + i, p.negative());
    Bool qNegative = product("negativeB_" + i, q.negative().xor(isSub));
    UInt alignedP = product("alignedA_" + i, wire("alignedA_" + i, aligned(p)));
    UInt alignedQ = product("alignedB_" + i, wire("alignedB_" + i, aligned(q)));
    UInt product = product("product_" + i, p.significand().mul(q.significand())).resize(EXACT_BITS);
    // exact product: sigA · sigB · 2^(effA + effB − 50)
    SInt productExponent = product("productExponent_" + i, p.effectiveField().resize(EXPONENT_BITS - 1).toSInt()
        .add(q.effectiveField().resize(EXPONENT_BITS - 1).toSInt()).add(sintLit(-50, EXPONENT_BITS)));
    Bool sameSignNow = p.negative().eq(q.negative().xor(isSub));
    Bool anyNan = p.nan().or(q.nan());
    Bool anyInfinite = bypass("anyInfinite_" + i, product("anyInfinite_" + i, p.infinite().or(q.infinite())));
    Bool sumNan = anyNan.or(p.infinite().and(q.infinite()).and(sameSignNow.not()));
    Bool productNan = anyNan.or(p.infinite().and(q.zero())).or(q.infinite().and(p.zero()));
    Bool infiniteNegative = bypass("infiniteNegative_" + i, product("infiniteNegative_" + i,
        mux(isMul, p.negative().xor(q.negative()), mux(p.infinite(), p.negative(), q.negative().xor(isSub)))));
    Bool resultNan = bypass("resultNan_" + i, product("resultNan_" + i, mux(isMul, productNan, sumNan)));

    // exact sum or difference at the 2^-24 quantum
    Bool sameSign = pNegative.eq(qNegative);
    Bool pLarger = alignedP.gt(alignedQ);
    Bool qLarger = alignedQ.gt(alignedP);
    UInt difference = mux(pLarger, alignedP.sub(alignedQ), alignedQ.sub(alignedP)).resize(EXACT_BITS);
    UInt sumMagnitude = mux(sameSign, alignedP.addExpand(alignedQ), difference);
    Bool sumNegative = mux(sameSign, pNegative, mux(pLarger, pNegative, qLarger.and(qNegative)));
    Bool productNegative = pNegative.xor(qNegative.xor(product("isSub_" + i, isSub)));

    FloatRounder rounder = instance("rounder_" + i, new FloatRounder(new FloatRounder.Config(EXACT_BITS,
        EXPONENT_BITS, FpLayout.FP16, RoundMode.NEAREST_EVEN, false), config.stages() >= 3, true));
    rounder.negative.set(stage("roundNegative_" + i, mux(mulP, productNegative, sumNegative)));
    rounder.magnitude.set(stage("roundMagnitude_" + i, mux(mulP, product, sumMagnitude)));
    rounder.exponent.set(stage("roundExponent_" + i, mux(mulP, productExponent, sintLit(-24, EXPONENT_BITS))));

    UInt nan = uintLit(CANONICAL_NAN, 16);
    UInt infinity = cat(infiniteNegative, uintLit(0x7C00, 15)).asUInt();
    UInt arithmetic = mux(resultNan, nan, mux(anyInfinite, infinity, rounder.code));

    // minimumNumber / maximumNumber and IEEE comparisons
    UInt keyP = orderKey(x);
    UInt keyQ = orderKey(y);
    Bool pAtLeast = keyP.ge(keyQ);
    Bool pAtMost = keyP.le(keyQ);
    UInt larger = mux(p.nan(), mux(q.nan(), nan, y), mux(q.nan(), x, mux(pAtLeast, x, y)));
    UInt smaller = mux(p.nan(), mux(q.nan(), nan, y), mux(q.nan(), x, mux(pAtMost, x, y)));
    Bool bothZero = p.zero().and(q.zero());
    Bool less = anyNan.not().and(keyP.lt(keyQ)).and(bothZero.not());
    Bool equal = anyNan.not().and(x.eq(y).or(bothZero));

    UInt flag = mux(op.eq(LT), less, mux(op.eq(EQ), equal, boolLit(false))).asUInt().resize(16);
    UInt other = bypass("other_" + i, product("other_" + i, mux(op.eq(MIN), smaller, mux(op.eq(MAX), larger, flag))));
    return mux(bypass("isArithmetic_" + i, product("isArithmetic_" + i, op.lt(MIN))), arithmetic, other);
  }

  /** {@code v} registered like the rounder's output (a bypass of the rounder): after the exact-value register, and after the rounder's own with stages >= 3. */
  private <T extends org.llmnpu.hdl.HwValue> T bypass(String name, T v) {
    T e = stage(name, v);
    return config.stages() >= 3 ? regNext("round_" + name, e) : e;
  }

  /** {@code v}, or {@code v} one cycle later with the exact-value register (stages >= 1). */
  private <T extends org.llmnpu.hdl.HwValue> T stage(String name, T v) {
    return config.stages() >= 1 ? regNext("split_" + name, v) : v;
  }

  /** {@code v}, or {@code v} one cycle later with the decode register (stages >= 2). */
  private <T extends org.llmnpu.hdl.HwValue> T product(String name, T v) {
    return config.stages() >= 2 ? regNext("decode_" + name, v) : v;
  }

  @Override
  public String moduleName() {
    return "Fp16Alu_l" + config.lanes() + "_d" + config.latency() + (config.stages() == 1 ? "_split"
        : config.stages() > 1 ? "_s" + config.stages() : "");
  }

  /** Registers {@code fp16-alu}. */
  public static final class Generator extends DeclaredGenerator {
    public Generator() {
      super("fp16-alu", "SIMD FP16 add/sub/mul/min/max/lt/eq, bit-exact with Fp16 (RNE, subnormals, canonical NaN)",
          List.of(
              ParamSpec.integer("lanes", 8, 1, 64, "SIMD lanes"),
              ParamSpec.integer("latency", 1, 0, 1, "0: combinational; 1: registered results"),
              FpStages.param()),
          p -> new Fp16Alu(new Config(p.getInt("lanes"), p.getInt("latency"), p.getInt("stages"))));
    }
  }
}
