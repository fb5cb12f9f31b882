package org.llmnpu.rtl.vector;

import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.sintLit;
import static org.llmnpu.hdl.Hw.uintLit;

import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.gen.DeclaredGenerator;
import org.llmnpu.rtl.mx.FloatRounder;
import org.llmnpu.rtl.mx.FpLayout;
import org.llmnpu.rtl.mx.RoundMode;

/**
 * FP16 fused multiply-add {@code result = a·b + c}, rounded once (RNE, gradual underflow,
 * overflow to ±∞) — bit-exact with {@code org.llmnpu.numerics.fp.Fma.fp16} (IEEE 754-2019
 * fusedMultiplyAdd). The Vector DSP's {@code FMA16}.
 *
 * <p><b>Numerics.</b> Every finite FP16 value is an integer times 2^−24, so the product is an
 * integer times 2^−48 below 2^80 and the addend one below 2^64 on the same grid: the 22-bit product
 * of the significands is shifted left by {@code effA + effB − 2} and the addend's significand by
 * {@code effC + 23} (eff = the exponent field, 1 for subnormals), and the two are added or
 * subtracted exactly in 81 bits (sign-magnitude: the larger minus the smaller). One
 * {@link FloatRounder} rounds the exact sum once with exponent −48. Exact zero: −0 only for
 * (−0 product) + (−0); cancellation gives +0. Specials: a NaN operand, ∞·0 and ∞ − ∞ give
 * 0x7E00; otherwise an infinite product or addend gives that infinity.
 *
 * <p>Latency {@code latency} cycles plus {@code stages} internal pipeline registers (0..3): 0
 * combinational; 1 registers the exact sum before the rounder; 2 also registers the decoded
 * operands and the 22-bit significand product (with their shift amounts) before the alignment; 3
 * also splits the rounder after its normalization. Throughput one per cycle.
 */
public final class Fp16Fma extends FmaUnit {
  private static final int CANONICAL_NAN = 0x7E00;
  private static final int ALIGNED_BITS = 80;
  private static final int EXPONENT_BITS = 8;
  /** The grid of the exact sum: 2^−48. */
  private static final int GRID_EXPONENT = -48;

  public Fp16Fma(Config config) {
    super(16, config);
    FpOperand p = FpOperand.fp16(a);
    FpOperand q = FpOperand.fp16(b);
    FpOperand s = FpOperand.fp16(c);

    // exact product and addend on the 2^-48 grid (the product and the shifts registered with stages >= 2)
    Bool productNegative = product("productNegative", p.negative().xor(q.negative()));
    Bool addendNegative = product("addendNegative", s.negative());
    UInt product = product("product", wire("product", p.significand().mul(q.significand())));
    UInt productShift = product("productShift", p.effectiveField().resize(6).add(q.effectiveField().resize(6))
        .sub(uintLit(2, 6)));
    UInt alignedProduct = wire("alignedProduct", product.resize(ALIGNED_BITS).shiftLeft(productShift));
    UInt addendShift = product("addendShift", s.effectiveField().resize(6).add(uintLit(23, 6)));
    UInt alignedAddend = wire("alignedAddend", product("addend", s.significand()).resize(ALIGNED_BITS)
        .shiftLeft(addendShift));

    Bool sameSign = productNegative.eq(addendNegative);
    Bool productLarger = alignedProduct.gt(alignedAddend);
    Bool addendLarger = alignedAddend.gt(alignedProduct);
    UInt difference = mux(productLarger, alignedProduct.sub(alignedAddend), alignedAddend.sub(alignedProduct))
        .resize(ALIGNED_BITS + 1);
    UInt magnitude = wire("sumMagnitude", mux(sameSign, alignedProduct.addExpand(alignedAddend), difference));
    Bool negative = mux(sameSign, productNegative, mux(productLarger, productNegative, addendLarger.and(addendNegative)));

    FloatRounder rounder = instance("rounder", new FloatRounder(new FloatRounder.Config(ALIGNED_BITS + 1,
        EXPONENT_BITS, FpLayout.FP16, RoundMode.NEAREST_EVEN, false), config.stages() >= 3, true));
    rounder.negative.set(stage("negative", negative));
    rounder.magnitude.set(stage("magnitude", magnitude));
    rounder.exponent.set(sintLit(GRID_EXPONENT, EXPONENT_BITS));

    Bool productInfinite = p.infinite().or(q.infinite());
    Bool nan = bypass("nan", product("nan", p.nan().or(q.nan()).or(s.nan()).or(p.infinite().and(q.zero()))
        .or(q.infinite().and(p.zero())).or(productInfinite.and(s.infinite())
        .and(p.negative().xor(q.negative()).eq(s.negative()).not()))));
    Bool infiniteNegative = mux(productInfinite, p.negative().xor(q.negative()), s.negative());
    UInt infinity = bypass("infinity", product("infinity", cat(infiniteNegative, uintLit(0x7C00, 15)).asUInt()));
    Bool infinite = bypass("infinite", product("infinite", productInfinite.or(s.infinite())));
    setResult(wire("value", mux(nan, uintLit(CANONICAL_NAN, 16), mux(infinite, infinity, rounder.code))));
  }

  /** {@code v} registered like the rounder's output (a bypass of the rounder): after the exact-value register, and after the rounder's own with stages >= 3. */
  private <T extends org.llmnpu.hdl.HwValue> T bypass(String name, T v) {
    T e = stage(name, v);
    return config.stages() >= 3 ? regNext("round_" + name, e) : e;
  }

  /** {@code v}, or {@code v} one cycle later with the product register (stages >= 2). */
  private <T extends org.llmnpu.hdl.HwValue> T product(String name, T v) {
    return config.stages() >= 2 ? regNext("product_" + name, v) : v;
  }

  /** Registers {@code fp16-fma}. */
  public static final class Generator extends DeclaredGenerator {
    public Generator() {
      super("fp16-fma", "FP16 fused multiply-add a·b + c, one rounding, bit-exact with numerics Fma.fp16",
          generatorParams(), factory(Fp16Fma::new));
    }
  }
}
