package org.llmnpu.rtl.mx;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.uint;

import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.Vec;
import org.llmnpu.hdl.gen.DeclaredGenerator;
import org.llmnpu.hdl.gen.ParamSpec;

/**
 * MX block quantizer: {@code blockSize} FP32 (or FP16) values → one MX block (E8M0
 * {@code scale} + element {@code codes}), bit-exact with {@code MxQuantizer.quantize} /
 * {@code quantizeFp16} of the golden model.
 *
 * <p>Numerics (OCP MX v1.0 §6.3): shared exponent {@code E = floor(log2(max|v_i|)) − emax}
 * clamped to [−127, 127] ({@link SharedExponent}); each element {@code v_i · 2^-E} rounded once
 * ({@code rounding}: RNE default or ties-away), subnormals kept, saturated to ±max normal
 * ({@link MxEncoder}, one per element, one shared Verilog module). All-zero block: scale 0x00
 * and signed-zero codes. Any NaN/∞ input: scale 0xFF and every code 0.
 *
 * <p>Latency {@code stages} cycles. With 1 stage the scale and all codes are computed in one
 * combinational pass (max tree of depth log2(blockSize), leading-zero count, element rounders in
 * parallel) and registered; with 2 stages the shared exponent and the inputs are registered
 * first, which splits that path roughly in half; with 3 the max tree inside {@link SharedExponent}
 * is also registered halfway (the inputs wait two cycles); with 4 each element encoder also registers
 * inside its rounder, after the normalization; with 5 the maximum is also registered before its log2 and
 * clamp. {@code outValid} follows {@code inValid}
 * {@code stages} cycles later. Throughput one block per cycle: a stream of B blocks, one per
 * cycle, takes B + stages − 1 cycles (block k's result is valid after clock edge k + stages).
 */
public final class MxBlockQuantizer extends HwModule {
  /**
   * Element format, input layout (FP32/FP16), element rounding, block size (1..64; OCP: 32) and
   * pipeline stages (1..5).
   */
  public record Config(MxFormat format, FpLayout input, RoundMode rounding, int blockSize, int stages) {
    public Config {
      if (stages < 1 || stages > 5) {
        throw new IllegalArgumentException("stages must be in 1..5, got " + stages);
      }
      new MxEncoder.Config(format, input, rounding);
      if (rounding == RoundMode.TOWARD_ZERO) {
        throw new IllegalArgumentException("rounding must be nearest_even or nearest_away, got toward_zero");
      }
      if (blockSize < 1 || blockSize > 64) {
        throw new IllegalArgumentException("blockSize must be in 1..64, got " + blockSize);
      }
    }

    /** One pipeline stage. */
    public Config(MxFormat format, FpLayout input, RoundMode rounding, int blockSize) {
      this(format, input, rounding, blockSize, 1);
    }
  }

  public final Vec<UInt> values;
  public final Bool inValid = in(bool());
  public final UInt scale = out(uint(8));
  public final Vec<UInt> codes;
  public final Bool outValid = out(bool());
  private final Config config;

  public MxBlockQuantizer(Config c) {
    config = c;
    values = in(Vec.of(c.blockSize(), () -> uint(c.input().totalBits())));
    codes = out(Vec.of(c.blockSize(), () -> uint(c.format().bits())));
    SharedExponent shared = instance("sharedExponent",
        new SharedExponent(c.input(), c.format(), c.blockSize(), c.stages() >= 5 ? 2 : c.stages() >= 3 ? 1 : 0));
    for (int i = 0; i < c.blockSize(); i++) {
      shared.magnitudes.get(i).set(values.get(i).lsbs(c.input().totalBits() - 1));
    }
    // with two stages the shared exponent and the values are registered before the encoders; with
    // three the max tree is also split halfway (inside SharedExponent) and the values wait one more cycle
    boolean split = c.stages() >= 2;
    UInt blockScale = split ? regNext("scale_s1", shared.scale) : shared.scale;
    // registers before the encoders: the shared exponent's own (0..2) and scale_s1
    int beforeEncoders = c.stages() - 1 - (c.stages() >= 4 ? 1 : 0);
    Bool validIn = inValid;
    for (int d = 0; d < c.stages() - 1; d++) {
      Bool v = regInit("valid_s" + (d + 1), bool(), 0);
      v.set(validIn);
      validIn = v;
    }
    for (int i = 0; i < c.blockSize(); i++) {
      MxEncoder encoder = instance("encoder_" + i, new MxEncoder(new MxEncoder.Config(c.format(), c.input(),
          c.rounding()), c.stages() >= 4));
      UInt value = values.get(i);
      for (int d = 0; d < beforeEncoders; d++) {
        value = regNext("value_s" + (d + 1) + "_" + i, value);
      }
      encoder.value.set(value);
      encoder.scale.set(blockScale);
      codes.get(i).set(regNext("code_q" + i, encoder.code));
    }
    scale.set(regNext("scale_q", c.stages() >= 4 ? regNext("scale_s3", blockScale) : blockScale));
    Bool valid = regInit("valid_q", bool(), 0);
    valid.set(validIn);
    outValid.set(valid);
  }

  @Override
  public String moduleName() {
    return "MxQuantizer_" + config.format().cliName() + "_" + MxDecoder.outputName(config.input()) + "_"
        + config.rounding().cliName() + "_n" + config.blockSize() + (config.stages() > 1 ? "_s" + config.stages() : "");
  }

  /** Registers {@code mx-quantizer}. */
  public static final class Generator extends DeclaredGenerator {
    public Generator() {
      super("mx-quantizer", "FP32/FP16 block -> MX block (shared exponent + RNE elements), latency = stages cycles",
          List.of(
              ParamSpec.choice("format", "fp8_e4m3", MxFormat.cliNames(), "MX element type"),
              ParamSpec.choice("input", "fp32", List.of("fp32", "fp16"), "input float format"),
              ParamSpec.choice("rounding", "nearest_even", List.of("nearest_even", "nearest_away"),
                  "element rounding"),
              ParamSpec.integer("blockSize", 32, 1, 64, "elements per block (OCP: 32)"),
              ParamSpec.integer("stages", 5, 1, 5, "pipeline stages: 1; 2 registers the shared exponent; "
                  + "3 also splits its max tree; 4 also splits each encoder's rounder; "
                  + "5 also registers the maximum")),
          p -> new MxBlockQuantizer(new Config(MxFormat.fromCliName(p.get("format")),
              MxDecoder.outputLayout(p.get("input")), RoundMode.fromCliName(p.get("rounding")), p.getInt("blockSize"),
              p.getInt("stages"))));
    }
  }
}
