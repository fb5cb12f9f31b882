package org.llmnpu.rtl.mx;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.sint;
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

/**
 * MX pre-alignment for the INT array: an MX block → signed integers {@code ints[i]} and one
 * {@code exponent} with {@code value_i ≈ ints[i] · 2^exponent}, bit-exact with
 * {@code MxPrealign.exact} ({@code magnitudeBits = 0}) and {@code MxPrealign.aligned}.
 *
 * <p>Exact ({@code magnitudeBits = 0}; FP4, INT8, FP6, E4M3 — E5M2 would need 33 bits and is
 * rejected): {@code ints[i]} is the element integer {@code value_i · 2^-q} (width: the type's
 * integer magnitude bits + sign, e.g. 5 for FP4, 8 for INT8, 19 for E4M3); exponent
 * {@code q + scale − 127}.
 *
 * <p>Aligned ({@code magnitudeBits = w ≥ 1}): {@code b = } the MSB position of the OR of all
 * element integer magnitudes (= the largest element exponent); each magnitude is shifted so bit
 * b lands on bit w−1 — left (exact) or right with the given rounding of the dropped bits — then
 * saturated to 2^w − 1 and the sign reapplied ({@code ints} are w + 1 bits). Exponent
 * {@code b − (w−1) + q + scale − 127}; an all-zero block gives {@code q + scale − 127}.
 *
 * <p>A NaN scale or a NaN/∞ element: {@code nan = 1}, ints and exponent 0. Latency 1 cycle
 * (registered outputs; {@code outValid} follows {@code inValid}); one block per cycle.
 */
public final class MxPrealigner extends HwModule {
  /** Format, magnitude bits (0 = exact, else 1..30), rounding of dropped bits, block size 1..64. */
  public record Config(MxFormat format, int magnitudeBits, RoundMode rounding, int blockSize) {
    public Config {
      if (format == null || rounding == null) {
        throw new IllegalArgumentException("format and rounding must be given");
      }
      if (magnitudeBits < 0 || magnitudeBits > 30) {
        throw new IllegalArgumentException("magnitudeBits must be in 0..30 (0 = exact), got " + magnitudeBits);
      }
      if (magnitudeBits == 0 && format == MxFormat.FP8_E5M2) {
        throw new IllegalArgumentException("format fp8_e5m2 needs 33-bit integers for exact pre-alignment;"
            + " set magnitudeBits to 1..30");
      }
      if (blockSize < 1 || blockSize > 64) {
        throw new IllegalArgumentException("blockSize must be in 1..64, got " + blockSize);
      }
    }

    /** Width of the signed integers (exact INT8: the 8-bit codes themselves). */
    int intBits() {
      if (magnitudeBits == 0 && format == MxFormat.INT8) {
        return 8;
      }
      return (magnitudeBits == 0 ? format.integerMagnitudeBits() : magnitudeBits) + 1;
    }
  }

  public final Vec<UInt> codes;
  public final UInt scale = in(uint(8));
  public final Bool inValid = in(bool());
  public final Vec<SInt> ints;
  public final SInt exponent = out(sint(11));
  public final Bool nan = out(bool());
  public final Bool outValid = out(bool());
  private final Config config;

  public MxPrealigner(Config c) {
    config = c;
    MxFormat f = c.format();
    int ib = f.integerMagnitudeBits();
    codes = in(Vec.of(c.blockSize(), () -> uint(f.bits())));
    ints = out(Vec.of(c.blockSize(), () -> sint(c.intBits())));

    ElementUnpack[] elements = new ElementUnpack[c.blockSize()];
    Bool special = scale.eq(0xFF);
    UInt orOfMagnitudes = uintLit(0, ib);
    for (int i = 0; i < c.blockSize(); i++) {
      elements[i] = instance("element_" + i, new ElementUnpack(f));
      elements[i].code.set(codes.get(i));
      special = special.or(elements[i].nan).or(elements[i].infinite);
      orOfMagnitudes = orOfMagnitudes.or(elements[i].integerMagnitude);
    }
    Bool blockIsNaN = wire("blockIsNaN", special);
    SInt baseExponent = scale.resize(10).toSInt().add(sintLit(f.quantumExponent() - 127L, 11));

    SInt blockExponent;
    UInt[] magnitudes = new UInt[c.blockSize()];
    if (c.magnitudeBits() == 0) {
      blockExponent = baseExponent;
      for (int i = 0; i < c.blockSize(); i++) {
        magnitudes[i] = elements[i].integerMagnitude;
      }
    } else {
      int w = c.magnitudeBits();
      UInt leadingZeros = wire("leadingZeros", LeadingZeros.count(orOfMagnitudes));
      // top = b, the MSB position of the largest magnitude (ib − 1 − lzc); shift = (w − 1) − b
      SInt top = wire("top", sintLit(ib - 1L, 11).sub(leadingZeros.resize(10).toSInt()));
      Bool allZero = orOfMagnitudes.orR().not();
      blockExponent = mux(allZero, baseExponent, baseExponent.add(top).sub(sintLit(w - 1L, 11)));
      SInt leftShift = wire("leftShift", sintLit(w - 1L, 11).sub(top));
      Bool shiftsLeft = leftShift.ge(0);
      int sw = Math.max(1, 32 - Integer.numberOfLeadingZeros(Math.max(ib, w)));
      UInt leftAmount = mux(shiftsLeft, leftShift.resize(sw).asUInt(), uintLit(0, sw));
      UInt rightAmount = mux(shiftsLeft, uintLit(0, sw), leftShift.neg().resize(sw).asUInt());
      for (int i = 0; i < c.blockSize(); i++) {
        magnitudes[i] = align(elements[i].integerMagnitude, w, ib, shiftsLeft, leftAmount, rightAmount, c.rounding());
      }
    }
    for (int i = 0; i < c.blockSize(); i++) {
      SInt magnitude = magnitudes[i].resize(c.intBits() - 1).toSInt();
      SInt signed = c.intBits() == 8 && c.magnitudeBits() == 0 ? codes.get(i).asSInt()
          : mux(elements[i].negative, magnitude.neg(), magnitude);
      ints.get(i).set(regNext("int_q" + i, mux(blockIsNaN, sintLit(0, c.intBits()), signed)));
    }
    exponent.set(regNext("exponent_q", mux(blockIsNaN, sintLit(0, 11), blockExponent)));
    nan.set(regNext("nan_q", blockIsNaN));
    Bool valid = regInit("valid_q", bool(), 0);
    valid.set(inValid);
    outValid.set(valid);
  }

  /** One magnitude shifted to w bits: left exactly, or right with rounding, saturated to 2^w − 1. */
  private static UInt align(UInt magnitude, int w, int ib, Bool shiftsLeft, UInt leftAmount, UInt rightAmount,
                            RoundMode rounding) {
    UInt left = magnitude.resize(Math.max(ib, w)).shiftLeft(leftAmount).resize(w);
    if (w >= ib) {
      return left;
    }
    // right shift by s in 1..ib−1: keep the top, the round bit at ib−1, the sticky bits below
    UInt extended = cat(magnitude, uintLit(0, ib)).asUInt().shiftRight(rightAmount);
    UInt kept = extended.msbs(ib);
    Bool half = extended.bit(ib - 1);
    Bool sticky = extended.lsbs(ib - 1).orR();
    UInt rounded = kept.addExpand(rounding.roundsUp(kept.bit(0), half, sticky).asUInt());
    UInt saturated = mux(rounded.gt((1L << w) - 1), uintLit((1L << w) - 1, w), rounded.resize(w));
    return mux(shiftsLeft, left, saturated);
  }

  @Override
  public String moduleName() {
    return "MxPrealigner_" + config.format().cliName() + "_w" + config.magnitudeBits() + "_"
        + config.rounding().cliName() + "_n" + config.blockSize();
  }

  /** Registers {@code mx-prealign}. */
  public static final class Generator extends DeclaredGenerator {
    public Generator() {
      super("mx-prealign", "MX block -> integers + block exponent for the INT array, latency 1 cycle",
          List.of(
              ParamSpec.choice("format", "fp4_e2m1", MxFormat.cliNames(), "MX element type"),
              ParamSpec.integer("magnitudeBits", 0, 0, 30, "0 = exact; else magnitude bits of the aligned integers"),
              ParamSpec.choice("rounding", "toward_zero", RoundMode.cliNames(), "rounding of bits shifted out"),
              ParamSpec.integer("blockSize", 32, 1, 64, "elements per block (OCP: 32)")),
          p -> new MxPrealigner(new Config(MxFormat.fromCliName(p.get("format")), p.getInt("magnitudeBits"),
              RoundMode.fromCliName(p.get("rounding")), p.getInt("blockSize"))));
    }
  }
}
