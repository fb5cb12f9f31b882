package org.llmnpu.rtl.vector;

import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.sintLit;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.gen.DeclaredGenerator;
import org.llmnpu.hdl.gen.ParamSpec;
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
 * <p>Latency {@code latency} cycles (+1 with {@code split}): 0 combinational, 1 registers the
 * result; {@code split} registers the exact sum before the rounder. Throughput one per cycle.
 */
public final class Fp16Fma extends HwModule {
  private static final int CANONICAL_NAN = 0x7E00;
  private static final int ALIGNED_BITS = 80;
  private static final int EXPONENT_BITS = 8;
  /** The grid of the exact sum: 2^−48. */
  private static final int GRID_EXPONENT = -48;

  /**
   * Output latency 0 or 1, and {@code split}: a pipeline register between the exact sum and its
   * rounding (one more cycle of latency).
   */
  public record Config(int latency, boolean split) {
    /** Without the split register. */
    public Config(int latency) {
      this(latency, false);
    }

    public Config {
      if (latency < 0 || latency > 1) {
        throw new IllegalArgumentException("latency must be 0 or 1, got " + latency);
      }
    }
  }

  public final UInt a = in(uint(16));
  public final UInt b = in(uint(16));
  public final UInt c = in(uint(16));
  public final UInt result = out(uint(16));
  private final Config config;

  public Fp16Fma(Config config) {
    this.config = config;
    Operand p = Operand.of(a);
    Operand q = Operand.of(b);
    Operand s = Operand.of(c);

    // exact product and addend on the 2^-48 grid
    Bool productNegative = p.negative.xor(q.negative);
    UInt product = wire("product", p.significand.mul(q.significand));
    UInt productShift = p.effectiveField.resize(6).add(q.effectiveField.resize(6)).sub(uintLit(2, 6));
    UInt alignedProduct = wire("alignedProduct", product.resize(ALIGNED_BITS).shiftLeft(productShift));
    UInt addendShift = s.effectiveField.resize(6).add(uintLit(23, 6));
    UInt alignedAddend = wire("alignedAddend", s.significand.resize(ALIGNED_BITS).shiftLeft(addendShift));

    Bool sameSign = productNegative.eq(s.negative);
    Bool productLarger = alignedProduct.gt(alignedAddend);
    Bool addendLarger = alignedAddend.gt(alignedProduct);
    UInt difference = mux(productLarger, alignedProduct.sub(alignedAddend), alignedAddend.sub(alignedProduct))
        .resize(ALIGNED_BITS + 1);
    UInt magnitude = wire("sumMagnitude", mux(sameSign, alignedProduct.addExpand(alignedAddend), difference));
    Bool negative = mux(sameSign, productNegative, mux(productLarger, productNegative, addendLarger.and(s.negative)));

    FloatRounder rounder = instance("rounder", new FloatRounder(new FloatRounder.Config(ALIGNED_BITS + 1,
        EXPONENT_BITS, FpLayout.FP16, RoundMode.NEAREST_EVEN, false)));
    rounder.negative.set(stage("negative", negative));
    rounder.magnitude.set(stage("magnitude", magnitude));
    rounder.exponent.set(sintLit(GRID_EXPONENT, EXPONENT_BITS));

    Bool productInfinite = p.infinite.or(q.infinite);
    Bool nan = stage("nan", p.nan.or(q.nan).or(s.nan).or(p.infinite.and(q.zero)).or(q.infinite.and(p.zero))
        .or(productInfinite.and(s.infinite).and(sameSign.not())));
    Bool infiniteNegative = mux(productInfinite, productNegative, s.negative);
    UInt infinity = stage("infinity", cat(infiniteNegative, uintLit(0x7C00, 15)).asUInt());
    Bool infinite = stage("infinite", productInfinite.or(s.infinite));
    UInt value = wire("value", mux(nan, uintLit(CANONICAL_NAN, 16), mux(infinite, infinity, rounder.code)));
    result.set(config.latency() == 1 ? regNext("result_q", value) : value);
  }

  /** {@code v}, or {@code v} one cycle later with the split register. */
  private <T extends org.llmnpu.hdl.HwValue> T stage(String name, T v) {
    return config.split() ? regNext("split_" + name, v) : v;
  }

  /** Fields and classes of one FP16 operand. */
  private record Operand(Bool negative, UInt significand, UInt effectiveField, Bool nan, Bool infinite, Bool zero) {
    static Operand of(UInt x) {
      UInt field = x.slice(14, 10);
      UInt fraction = x.lsbs(10);
      Bool normal = field.orR();
      Bool special = field.andR();
      return new Operand(x.bit(15), cat(normal, fraction).asUInt(), mux(normal, field, uintLit(1, 5)),
          special.and(fraction.orR()), special.and(fraction.orR().not()), x.lsbs(15).orR().not());
    }
  }

  @Override
  public String moduleName() {
    return "Fp16Fma_d" + config.latency() + (config.split() ? "_split" : "");
  }

  /** Registers {@code fp16-fma}. */
  public static final class Generator extends DeclaredGenerator {
    public Generator() {
      super("fp16-fma", "FP16 fused multiply-add a·b + c, one rounding, bit-exact with numerics Fma.fp16",
          List.of(ParamSpec.integer("latency", 1, 0, 1, "0: combinational; 1: registered result")),
          p -> new Fp16Fma(new Config(p.getInt("latency"))));
    }
  }
}
