package org.llmnpu.rtl.mx;

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

/**
 * MX element decoder: element {@code code} and E8M0 {@code scale} → the FP32 (or FP16) bit
 * pattern of {@code decode(code) · 2^(scale − 127)}, bit-exact with
 * {@code MxBlock.dequantizeToFp32/Fp16} of the golden model.
 *
 * <p>Numerics: the exact product is rounded once, RNE, overflow to ±∞, subnormals kept. For
 * FP32 output no rounding ever happens (every element has ≤ 8 significant bits and the smallest
 * product, 2^-143, is an FP32 subnormal multiple); only overflow (E5M2/E4M3/E3M2 with large
 * scales) gives ∞. For FP16 output, small scales round into the subnormal range or to ±0.
 * Specials: scale 0xFF or an FP8 NaN code → canonical NaN (0x7FC00000 / 0x7E00); an E5M2 ∞
 * code → ±∞; ±0 keeps its sign.
 *
 * <p>Latency 0: combinational (an {@link ElementUnpack} and a {@link FloatRounder}).
 */
public final class MxDecoder extends HwModule {
  /** Element format and output layout ({@link FpLayout#FP32} or {@link FpLayout#FP16}). */
  public record Config(MxFormat format, FpLayout output) {
    public Config {
      if (format == null) {
        throw new IllegalArgumentException("format must be one of " + MxFormat.cliNames());
      }
      if (!FpLayout.FP32.equals(output) && !FpLayout.FP16.equals(output)) {
        throw new IllegalArgumentException("output must be FP32 or FP16, got " + output);
      }
    }
  }

  public final UInt code;
  public final UInt scale = in(uint(8));
  public final UInt value;
  private final Config config;

  public MxDecoder(Config c) {
    config = c;
    FpLayout out = c.output();
    code = in(uint(c.format().bits()));
    value = out(uint(out.totalBits()));

    ElementUnpack element = instance("element", new ElementUnpack(c.format()));
    element.code.set(code);
    int exponentWidth = 11;
    // value = significand · 2^(binadeShift + q + scale − 127)
    SInt exponent = element.binadeShift.resize(exponentWidth - 1).toSInt()
        .add(scale.resize(exponentWidth - 1).toSInt())
        .add(sintLit(c.format().quantumExponent() - 127L, exponentWidth));
    FloatRounder rounder = instance("rounder", new FloatRounder(new FloatRounder.Config(
        element.significand.width(), exponentWidth, out, RoundMode.NEAREST_EVEN, false)));
    rounder.negative.set(element.negative);
    rounder.magnitude.set(element.significand);
    rounder.exponent.set(exponent);

    Bool nan = scale.eq(0xFF).or(element.nan);
    UInt infinity = uintLit(out.infinityMagnitude(), out.totalBits())
        .or(mux(element.negative, uintLit(1L << (out.totalBits() - 1), out.totalBits()), uintLit(0, out.totalBits())));
    value.set(mux(nan, uintLit(out.canonicalNaN(), out.totalBits()), mux(element.infinite, infinity, rounder.code)));
  }

  @Override
  public String moduleName() {
    return "MxDecoder_" + config.format().cliName() + "_" + outputName(config.output());
  }

  static String outputName(FpLayout layout) {
    return FpLayout.FP16.equals(layout) ? "fp16" : "fp32";
  }

  static FpLayout outputLayout(String name) {
    return "fp16".equals(name) ? FpLayout.FP16 : FpLayout.FP32;
  }

  /** Registers {@code mx-decode}. */
  public static final class Generator extends DeclaredGenerator {
    public Generator() {
      super("mx-decode", "MX element code + E8M0 scale -> FP32/FP16 (RNE, combinational)",
          List.of(
              ParamSpec.choice("format", "fp8_e4m3", MxFormat.cliNames(), "MX element type"),
              ParamSpec.choice("output", "fp32", List.of("fp32", "fp16"), "output float format")),
          p -> new MxDecoder(new Config(MxFormat.fromCliName(p.get("format")), outputLayout(p.get("output")))));
    }
  }
}
