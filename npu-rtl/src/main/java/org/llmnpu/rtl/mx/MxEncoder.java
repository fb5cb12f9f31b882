package org.llmnpu.rtl.mx;

import static org.llmnpu.hdl.Hw.bool;
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

/**
 * MX element encoder: an FP32 (or FP16) {@code value} and the block's E8M0 {@code scale} → the
 * element code of {@code value · 2^-(scale − 127)}, bit-exact with
 * {@code MxElementType.encode(v · 2^-E, rounding)} of the golden model (the element step of
 * {@code MxQuantizer}).
 *
 * <p>Numerics: the division by 2^E is exact (an exponent offset); the result is rounded once
 * with {@code rounding} (RNE default, ties-away option), subnormal element codes kept, and any
 * magnitude beyond the largest normal saturates to ±max normal (never NaN or ∞; for E5M2 the
 * largest finite code). INT8 rounds {@code v · 2^(6 − E)} to an integer and saturates to
 * [−128, 127]. A zero or a value rounding to zero keeps its sign in float formats.
 *
 * <p>Invalid inputs (the golden rejects them; the quantizer never passes them): a NaN or ∞
 * {@code value}, or the NaN scale 0xFF, give code 0 and {@code invalid = 1}.
 *
 * <p>Latency 0 (combinational): unpack, one {@link FloatRounder}, INT8 clamp.
 */
public final class MxEncoder extends HwModule {
  /** Element format, input layout (FP32 or FP16) and rounding. */
  public record Config(MxFormat format, FpLayout input, RoundMode rounding) {
    public Config {
      if (format == null || rounding == null) {
        throw new IllegalArgumentException("format and rounding must be given");
      }
      if (!FpLayout.FP32.equals(input) && !FpLayout.FP16.equals(input)) {
        throw new IllegalArgumentException("input must be FP32 or FP16, got " + input);
      }
    }
  }

  public final UInt value;
  public final UInt scale = in(uint(8));
  public final UInt code;
  public final Bool invalid = out(bool());
  private final Config config;
  private final boolean split;

  /** Combinational. */
  public MxEncoder(Config c) {
    this(c, false);
  }

  /**
   * With {@code split}, a pipeline register inside the rounder after its normalization
   * ({@link FloatRounder} {@code split}) and on the invalid flag: latency 1, {@code invalid} one
   * cycle later too.
   */
  public MxEncoder(Config c, boolean split) {
    config = c;
    this.split = split;
    FpLayout in = c.input();
    int m = in.mantissaBits();
    value = in(uint(in.totalBits()));
    code = out(uint(c.format().bits()));

    Bool negative = value.bit(in.totalBits() - 1);
    UInt exponentField = value.slice(in.totalBits() - 2, m);
    Bool normal = exponentField.orR();
    UInt significand = cat(normal, value.lsbs(m)).asUInt();
    Bool isInvalid = stage("invalid", exponentField.andR().or(scale.eq(0xFF)));
    invalid.set(isInvalid);

    // value · 2^-E = significand · 2^(max(field, 1) − bias − m − scale + 127)
    int xw = 11;
    UInt effectiveField = mux(normal, exponentField, uintLit(1, in.exponentBits()));
    SInt exponent = effectiveField.resize(xw - 1).toSInt().sub(scale.resize(xw - 1).toSInt())
        .add(sintLit(127L - in.bias() - m, xw));
    MxFormat f = c.format();
    FpLayout target = f.layout() == null ? MxFormat.INT8_AS_FLOAT : f.layout();
    FloatRounder rounder = instance("rounder", new FloatRounder(new FloatRounder.Config(
        m + 1, xw, target, c.rounding(), true), split));
    rounder.negative.set(negative);
    rounder.magnitude.set(significand);
    rounder.exponent.set(exponent);

    UInt encoded;
    if (f.layout() == null) {
      // INT8: the rounder's magnitude field is the integer |v · 2^(6−E)| saturated at 255; clamp to
      // 127 (positive) or 128 (negative), then two's complement
      UInt integer = rounder.code.lsbs(8);
      UInt positive = mux(integer.gt(127), uintLit(127, 8), integer);
      UInt negativeMagnitude = mux(integer.gt(128), uintLit(128, 8), integer);
      encoded = mux(rounder.code.bit(8), negativeMagnitude.not().add(1), positive);
    } else {
      encoded = rounder.code;
    }
    code.set(mux(isInvalid, uintLit(0, f.bits()), encoded));
  }

  /** {@code v}, or {@code v} one cycle later with the split register. */
  private <T extends org.llmnpu.hdl.HwValue> T stage(String name, T v) {
    return split ? regNext("split_" + name, v) : v;
  }

  @Override
  public String moduleName() {
    return "MxEncoder_" + config.format().cliName() + "_" + MxDecoder.outputName(config.input()) + "_"
        + config.rounding().cliName() + (split ? "_split" : "");
  }

  /** Registers {@code mx-encode}. */
  public static final class Generator extends DeclaredGenerator {
    public Generator() {
      super("mx-encode", "FP32/FP16 value + E8M0 scale -> MX element code (RNE or ties-away, saturating)",
          List.of(
              ParamSpec.choice("format", "fp8_e4m3", MxFormat.cliNames(), "MX element type"),
              ParamSpec.choice("input", "fp32", List.of("fp32", "fp16"), "input float format"),
              ParamSpec.choice("rounding", "nearest_even", List.of("nearest_even", "nearest_away"),
                  "element rounding")),
          p -> new MxEncoder(new Config(MxFormat.fromCliName(p.get("format")),
              MxDecoder.outputLayout(p.get("input")), RoundMode.fromCliName(p.get("rounding")))));
    }
  }
}
