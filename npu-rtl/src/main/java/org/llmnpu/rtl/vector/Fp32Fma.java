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
import org.llmnpu.hdl.gen.ParamSpec;
import org.llmnpu.rtl.mx.FloatRounder;
import org.llmnpu.rtl.mx.FpLayout;
import org.llmnpu.rtl.mx.LeadingZeros;
import org.llmnpu.rtl.mx.RoundMode;

/**
 * FP32 fused multiply-add {@code result = a·b + c}, rounded once (RNE, gradual underflow,
 * overflow to ±∞, canonical NaN 0x7FC00000) — bit-exact with {@code org.llmnpu.numerics.fp.Fma.fp32Bits}
 * (IEEE 754-2019 fusedMultiplyAdd). The Vector DSP's {@code FMA32}.
 *
 * <p><b>Numerics.</b> The 48-bit product of the significands is normalized (leading-zero count),
 * so {@code P = mp·2^ep} with {@code mp ∈ [2^47, 2^48)}. With {@code d = ec − ep} the distance of
 * the addend {@code C = mc·2^ec}:
 * <ul>
 *   <li>{@code d > 50}: the product is below 2^(ec−3), less than a quarter of the addend's
 *       smallest neighbouring ulp, so the rounded sum is {@code c} itself;</li>
 *   <li>{@code d < −25}: the addend is below a quarter of the product's grid 2^ep, itself at most
 *       a quarter of the result's ulp, so only its sign matters: it is replaced by
 *       {@code ±2^(ep−26)} (same rounding);</li>
 *   <li>otherwise both sit exactly in a 75-bit window on the grid {@code 2^min(ep, ec)}: they are
 *       added or subtracted exactly (sign-magnitude) and one {@link FloatRounder} rounds the sum.</li>
 * </ul>
 * Exact zero: −0 only for (−0 product) + (−0); cancellation gives +0. A zero product gives
 * {@code c}. Specials: a NaN operand, ∞·0 and ∞ − ∞ give 0x7FC00000; otherwise an infinite
 * product or addend gives that infinity.
 *
 * <p>Latency {@code latency} cycles plus {@code stages} internal registers (0..3): 1 holds the exact
 * window sum before the rounder; 2 also registers the operands at the input (the unit is not
 * rebalanced: a register stage for the deeper DSP pipelines); 3 also splits the rounder after its
 * normalization. Throughput one per cycle.
 */
public final class Fp32Fma extends HwModule {
  private static final int CANONICAL_NAN = 0x7FC00000;
  private static final int WINDOW = 75;
  private static final int EXPONENT_BITS = 11;

  /** Output latency 0 or 1, and {@code stages} internal registers 0..3 (see the class comment). */
  public record Config(int latency, int stages) {
    /** With {@code split}: one internal register, between the exact sum and its rounding. */
    public Config(int latency, boolean split) {
      this(latency, split ? 1 : 0);
    }

    public Config {
      if (latency < 0 || latency > 1) {
        throw new IllegalArgumentException("latency must be 0 or 1, got " + latency);
      }
      if (stages < 0 || stages > 3) {
        throw new IllegalArgumentException("stages must be in 0..3, got " + stages);
      }
    }
  }

  public final UInt a = in(uint(32));
  public final UInt b = in(uint(32));
  public final UInt c = in(uint(32));
  public final UInt result = out(uint(32));
  private final Config config;

  public Fp32Fma(Config config) {
    this.config = config;
    boolean inputRegister = config.stages() >= 2;
    UInt x = inputRegister ? regNext("input_a", a) : a;
    UInt y = inputRegister ? regNext("input_b", b) : b;
    UInt z = inputRegister ? regNext("input_c", c) : c;
    FpOperand p = FpOperand.fp32(x);
    FpOperand q = FpOperand.fp32(y);
    FpOperand s = FpOperand.fp32(z);

    Bool productNegative = p.negative().xor(q.negative());
    UInt product = wire("product", p.significand().mul(q.significand()));
    UInt lz = wire("productZeros", LeadingZeros.count(product));
    UInt normalized = wire("normalizedProduct", product.shiftLeft(lz));
    // ep = effA + effB − 300 − lz, ec = effC − 150, d = ec − ep
    SInt effSum = p.effectiveField().resize(EXPONENT_BITS).add(q.effectiveField().resize(EXPONENT_BITS)).toSInt();
    SInt ep = wire("productExponent", effSum.sub(sintLit(300, EXPONENT_BITS + 1))
        .sub(lz.resize(EXPONENT_BITS).toSInt()));
    SInt d = wire("distance", s.effectiveField().resize(EXPONENT_BITS).toSInt().sub(sintLit(150, EXPONENT_BITS + 1))
        .sub(ep));
    Bool addendDominates = wire("addendDominates", d.gt(50).and(s.zero().not()));
    Bool addendTiny = d.lt(-25);
    // the addend in the window: 0 when zero, ±1 at distance −26 when tiny
    UInt mc = mux(s.zero(), uintLit(0, 24), mux(addendTiny, uintLit(1, 24), s.significand()));
    SInt dd = mux(s.zero(), sintLit(0, EXPONENT_BITS + 1), mux(addendTiny, sintLit(-26, EXPONENT_BITS + 1), d));
    Bool addendAbove = dd.ge(0);
    UInt upShift = mux(addendAbove, dd.resize(6).asUInt(), uintLit(0, 6));
    UInt downShift = mux(addendAbove, uintLit(0, 5), dd.neg().resize(5).asUInt());
    UInt alignedProduct = wire("alignedProduct", normalized.resize(WINDOW - 1).shiftLeft(downShift));
    UInt alignedAddend = wire("alignedAddend", mc.resize(WINDOW - 1).shiftLeft(upShift));
    SInt grid = wire("grid", ep.add(mux(addendAbove, sintLit(0, EXPONENT_BITS + 1), dd)));

    Bool sameSign = productNegative.eq(s.negative());
    Bool productLarger = alignedProduct.gt(alignedAddend);
    Bool addendLarger = alignedAddend.gt(alignedProduct);
    UInt difference = mux(productLarger, alignedProduct.sub(alignedAddend), alignedAddend.sub(alignedProduct))
        .resize(WINDOW);
    UInt magnitude = wire("sumMagnitude", mux(sameSign, alignedProduct.addExpand(alignedAddend), difference));
    Bool negative = mux(sameSign, productNegative, mux(productLarger, productNegative, addendLarger.and(s.negative())));

    FloatRounder rounder = instance("rounder", new FloatRounder(new FloatRounder.Config(WINDOW,
        EXPONENT_BITS + 1, FpLayout.FP32, RoundMode.NEAREST_EVEN, false), config.stages() >= 3, true));
    rounder.negative.set(stage("negative", negative));
    rounder.magnitude.set(stage("magnitude", magnitude));
    rounder.exponent.set(stage("grid", grid));

    Bool productZero = p.zero().or(q.zero());
    Bool productInfinite = p.infinite().or(q.infinite());
    Bool nan = p.nan().or(q.nan()).or(s.nan()).or(p.infinite().and(q.zero())).or(q.infinite().and(p.zero()))
        .or(productInfinite.and(s.infinite()).and(sameSign.not()));
    Bool infiniteNegative = mux(productInfinite, productNegative, s.negative());
    UInt zero = cat(productNegative.and(s.negative()), uintLit(0, 31)).asUInt();
    // a zero product: c, or the signed zero when c is zero too
    UInt passThrough = mux(productZero.and(s.zero()), zero, z);
    UInt special = mux(nan, uintLit(CANONICAL_NAN, 32), mux(productInfinite.or(s.infinite()),
        cat(infiniteNegative, uintLit(0x7F800000L, 31)).asUInt(), passThrough));
    Bool useSpecial = bypass("useSpecial", nan.or(productInfinite).or(s.infinite()).or(productZero)
        .or(addendDominates));
    UInt value = wire("value", mux(useSpecial, bypass("special", special), rounder.code));
    result.set(config.latency() == 1 ? regNext("result_q", value) : value);
  }

  /** {@code v} registered like the rounder's output (a bypass of the rounder): after the exact-value register, and after the rounder's own with stages >= 3. */
  private <T extends org.llmnpu.hdl.HwValue> T bypass(String name, T v) {
    T e = stage(name, v);
    return config.stages() >= 3 ? regNext("round_" + name, e) : e;
  }

  /** {@code v}, or {@code v} one cycle later with the exact-sum register (stages >= 1). */
  private <T extends org.llmnpu.hdl.HwValue> T stage(String name, T v) {
    return config.stages() >= 1 ? regNext("split_" + name, v) : v;
  }

  @Override
  public String moduleName() {
    return "Fp32Fma_d" + config.latency() + (config.stages() == 1 ? "_split" : config.stages() > 1 ? "_s"
        + config.stages() : "");
  }

  /** Registers {@code fp32-fma}. */
  public static final class Generator extends DeclaredGenerator {
    public Generator() {
      super("fp32-fma", "FP32 fused multiply-add a·b + c, one rounding, bit-exact with numerics Fma.fp32Bits",
          List.of(ParamSpec.integer("latency", 1, 0, 1, "0: combinational; 1: registered result"), FpStages.param()),
          p -> new Fp32Fma(new Config(p.getInt("latency"), p.getInt("stages"))));
    }
  }
}
