package org.llmnpu.rtl.mx;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.log2Ceil;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.sintLit;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.Vec;
import org.llmnpu.hdl.gen.DeclaredGenerator;
import org.llmnpu.hdl.gen.ParamSpec;
import org.llmnpu.rtl.vector.PrefixAdder;

/**
 * MX block dot product: two MX blocks (element types may differ) → the FP32 bit pattern of
 * {@code Σ a_i·b_i}, bit-exact with {@code MxDot.dot(a, b)} of the golden model.
 *
 * <p>Numerics: each element is its exact integer ({@code value · 2^-q}), the products are exact
 * ({@code ibA + ibB} bits), their sum is exact in a two's-complement accumulator of
 * {@link #accumulatorBits} = ibA + ibB + ceil(log2 blockSize) + 1 bits (E4M3·E4M3 over 32: 42
 * bits; E5M2·E5M2: 70; FP4·FP4: 14; INT8·INT8: 22), and one final rounding to FP32 (RNE,
 * overflow to ±∞, subnormals kept) of {@code sum · 2^(qA + qB + EA + EB)}. An exactly zero sum
 * gives +0. Specials: a NaN scale or NaN element → NaN (0x7FC00000); ∞·0 or +∞ and −∞
 * together → NaN; otherwise any ∞ product → that ∞ (E5M2 only).
 *
 * <p>Latency {@code stages} cycles: with 1 stage the products, a balanced adder tree of depth
 * ceil(log2 blockSize) and the rounder form one combinational pass into the output register;
 * with 2 stages the exact sum, the exponent and the special flags are registered before the
 * rounder; 3 also splits the rounder after its normalization ({@link FloatRounder} {@code split});
 * 4 also registers the signed products before the adder tree; 5 also registers the partial sums
 * halfway down the tree (after ceil(depth / 2) levels). From 6 stages on the sum takes another
 * form (same results): 6 = products | carry-save tree | carry-propagate add and |sum| | leading-zero
 * count | normalize | round — each signed product is the small significand product, negated while
 * small and shifted by the summed binade shifts ({@link MxDotTerms#shiftedProduct}; no wide
 * multiplier or wide negation), registered; a 3:2 carry-save tree reduces the products to two rows
 * (32 products: 8 full-adder levels), registered; a Kogge–Stone {@link PrefixAdder} adds the rows
 * and a log-depth negation ({@link MxDotTerms#absolute}) gives |sum|, registered with its sign; the
 * rounder registers after its leading-zero count ({@link FloatRounder} {@code splitCount}) and
 * after its normalization.
 * {@code outValid} follows {@code inValid}. Throughput one block pair per cycle: B pairs take
 * B + stages − 1 cycles (pair k's result is valid after clock edge k + stages).
 */
public final class MxDotProduct extends HwModule {
  /**
   * The deepest pipeline: products | carry-save tree | carry-propagate add and |sum| | leading-zero
   * count | normalize | round.
   */
  public static final int MAX_STAGES = 6;
  /** Element formats of the two blocks, the block size (1..64; OCP: 32) and pipeline stages (1..{@link #MAX_STAGES}). */
  public record Config(MxFormat formatA, MxFormat formatB, int blockSize, int stages) {
    public Config {
      if (stages < 1 || stages > MAX_STAGES) {
        throw new IllegalArgumentException("stages must be in 1.." + MAX_STAGES + ", got " + stages);
      }
      if (formatA == null || formatB == null) {
        throw new IllegalArgumentException("formatA and formatB must be one of " + MxFormat.cliNames());
      }
      if (blockSize < 1 || blockSize > 64) {
        throw new IllegalArgumentException("blockSize must be in 1..64, got " + blockSize);
      }
    }

    /** One pipeline stage. */
    public Config(MxFormat formatA, MxFormat formatB, int blockSize) {
      this(formatA, formatB, blockSize, 1);
    }

    /** Width of the exact accumulator (see class comment). */
    public int accumulatorBits() {
      return formatA.integerMagnitudeBits() + formatB.integerMagnitudeBits() + log2Ceil(blockSize) + 1;
    }
  }

  public final Vec<UInt> codesA;
  public final UInt scaleA = in(uint(8));
  public final Vec<UInt> codesB;
  public final UInt scaleB = in(uint(8));
  public final Bool inValid = in(bool());
  public final UInt result = out(uint(32));
  public final Bool outValid = out(bool());
  private final Config config;

  public MxDotProduct(Config c) {
    config = c;
    int accBits = c.accumulatorBits();
    codesA = in(Vec.of(c.blockSize(), () -> uint(c.formatA().bits())));
    codesB = in(Vec.of(c.blockSize(), () -> uint(c.formatB().bits())));

    // from 6 stages on: short-path product and |sum| forms, and the rounder's count register
    boolean deep = c.stages() >= 6;
    List<SInt> products = new ArrayList<>();
    Bool nan = scaleA.eq(0xFF).or(scaleB.eq(0xFF));
    Bool posInf = null;
    Bool negInf = null;
    for (int i = 0; i < c.blockSize(); i++) {
      ElementUnpack a = instance("a_" + i, new ElementUnpack(c.formatA()));
      ElementUnpack b = instance("b_" + i, new ElementUnpack(c.formatB()));
      a.code.set(codesA.get(i));
      b.code.set(codesB.get(i));
      Bool negative = a.negative.xor(b.negative);
      if (deep) {
        products.add(MxDotTerms.shiftedProduct(a, b, negative, accBits));
      } else {
        SInt product = a.integerMagnitude.mul(b.integerMagnitude).resize(accBits - 1).toSInt();
        products.add(mux(negative, product.neg(), product));
      }
      Bool aZero = a.integerMagnitude.orR().not().and(a.infinite.not());
      Bool bZero = b.integerMagnitude.orR().not().and(b.infinite.not());
      Bool infinite = a.infinite.or(b.infinite);
      nan = nan.or(a.nan).or(b.nan).or(a.infinite.and(bZero)).or(b.infinite.and(aZero));
      Bool pos = infinite.and(negative.not());
      Bool neg = infinite.and(negative);
      posInf = posInf == null ? pos : posInf.or(pos);
      negInf = negInf == null ? neg : negInf.or(neg);
    }
    // the flags travel with the data through every register stage
    int extra = c.stages() - 1;
    boolean splitRounder = c.stages() >= 3;
    int beforeRounder = extra - (splitRounder ? 1 : 0) - (deep ? 1 : 0);
    if (c.stages() >= 4) {
      for (int i = 0; i < products.size(); i++) {
        products.set(i, regNext("product_s" + i, products.get(i)));
      }
    }
    SInt sum = null;
    Bool deepNegative = null;
    UInt deepMagnitude = null;
    if (deep) {
      // carry-save tree | prefix adder and |sum| | rounder
      List<UInt> rows = new ArrayList<>();
      for (SInt p : products) {
        rows.add(p.asUInt());
      }
      rows = MxDotTerms.carrySaveRows(rows);
      SInt exact = wire("sum", PrefixAdder.add(regNext("carrySave_s0", rows.get(0)),
          regNext("carrySave_s1", rows.get(1))).asSInt());
      deepNegative = regNext("sumNegative_s", exact.isNegative());
      deepMagnitude = regNext("magnitude_s", MxDotTerms.absolute(exact));
    } else {
      if (c.stages() >= 5) {
        products = halfTree(products, (log2Ceil(products.size()) + 1) / 2);
      }
      sum = wire("sum", adderTree(products));
      boolean split = c.stages() >= 2;
      if (split) {
        sum = regNext("sum_s1", sum);
      }
    }
    for (int d = 0; d < extra; d++) {
      nan = regNext("nan_d" + d, nan);
      posInf = regNext("posInf_d" + d, posInf);
      negInf = regNext("negInf_d" + d, negInf);
    }
    Bool sumNegative = deep ? deepNegative : sum.isNegative();
    UInt magnitude = deep ? deepMagnitude : mux(sumNegative, sum.neg(), sum).asUInt();
    SInt exponent = scaleA.resize(10).toSInt().add(scaleB.resize(10).toSInt())
        .add(sintLit(c.formatA().quantumExponent() + c.formatB().quantumExponent() - 254L, 11));
    for (int d = 0; d < beforeRounder; d++) {
      exponent = regNext("exponent_d" + d, exponent);
    }
    FloatRounder rounder = instance("rounder", new FloatRounder(new FloatRounder.Config(
        accBits, 11, FpLayout.FP32, RoundMode.NEAREST_EVEN, false), splitRounder, false, deep));
    rounder.negative.set(sumNegative);
    rounder.magnitude.set(magnitude);
    rounder.exponent.set(exponent);

    Bool isNaN = wire("isNaN", nan.or(posInf.and(negInf)));
    UInt value = mux(isNaN, uintLit(FpLayout.FP32.canonicalNaN(), 32),
        mux(posInf, uintLit(0x7F80_0000L, 32), mux(negInf, uintLit(0xFF80_0000L, 32), rounder.code)));
    result.set(regNext("result_q", value));
    Bool validIn = inValid;
    for (int d = 0; d < extra; d++) {
      Bool v = regInit("valid_d" + d, bool(), 0);
      v.set(validIn);
      validIn = v;
    }
    Bool valid = regInit("valid_q", bool(), 0);
    valid.set(validIn);
    outValid.set(valid);
  }

  /** The partial sums after {@code levels} levels of the balanced tree (pairs summed), registered. */
  private List<SInt> halfTree(List<SInt> terms, int levels) {
    List<SInt> level = terms;
    for (int l = 0; l < levels && level.size() > 1; l++) {
      List<SInt> next = new ArrayList<>();
      for (int i = 0; i + 1 < level.size(); i += 2) {
        next.add(level.get(i).add(level.get(i + 1)));
      }
      if (level.size() % 2 == 1) {
        next.add(level.get(level.size() - 1));
      }
      level = next;
    }
    List<SInt> registered = new ArrayList<>();
    for (int i = 0; i < level.size(); i++) {
      registered.add(regNext("partial_s" + i, level.get(i)));
    }
    return registered;
  }

  private static SInt adderTree(List<SInt> terms) {
    if (terms.size() == 1) {
      return terms.get(0);
    }
    int half = terms.size() / 2;
    return adderTree(terms.subList(0, half)).add(adderTree(terms.subList(half, terms.size())));
  }

  @Override
  public String moduleName() {
    return "MxDot_" + config.formatA().cliName() + "_" + config.formatB().cliName() + "_n" + config.blockSize()
        + (config.stages() > 1 ? "_s" + config.stages() : "");
  }

  /** Registers {@code mx-dot}. */
  public static final class Generator extends DeclaredGenerator {
    public Generator() {
      super("mx-dot", "two MX blocks -> FP32 dot product (exact products and sum, one RNE rounding), latency = stages cycles",
          List.of(
              ParamSpec.choice("formatA", "fp8_e4m3", MxFormat.cliNames(), "element type of block A"),
              ParamSpec.choice("formatB", "fp8_e4m3", MxFormat.cliNames(), "element type of block B"),
              ParamSpec.integer("blockSize", 32, 1, 64, "elements per block (OCP: 32)"),
              ParamSpec.integer("stages", 6, 1, MAX_STAGES, "pipeline stages: 1; 2 registers the exact sum; "
                  + "3 also splits the rounder; 4 also the products; 5 also halfway down the adder tree; "
                  + "6 products | carry-save tree | prefix add and |sum| | leading-zero count | normalize | round")),
          p -> new MxDotProduct(new Config(MxFormat.fromCliName(p.get("formatA")), MxFormat.fromCliName(p.get("formatB")),
              p.getInt("blockSize"), p.getInt("stages"))));
    }
  }
}
