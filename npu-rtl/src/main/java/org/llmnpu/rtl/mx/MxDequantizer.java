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
 * MX block dequantizer: {@code blockSize} element codes sharing one E8M0 {@code scale} → the
 * FP32 (or FP16) bit patterns of every element, bit-exact with
 * {@code MxBlock.dequantizeToFp32/Fp16}: one {@link MxDecoder} per element (one Verilog module
 * definition shared by all), so each value is rounded once (RNE, overflow to ±∞); a NaN scale
 * makes every output the canonical NaN.
 *
 * <p>Latency 1 cycle ({@code values} and {@code outValid} registered; {@code outValid} follows
 * {@code inValid}); throughput one block per cycle: a stream of B blocks takes B cycles (the last result is valid
 * after the B-th clock edge).
 */
public final class MxDequantizer extends HwModule {
  /** Element format, output layout (FP32/FP16) and block size (1..64; OCP: 32). */
  public record Config(MxFormat format, FpLayout output, int blockSize) {
    public Config {
      new MxDecoder.Config(format, output);
      if (blockSize < 1 || blockSize > 64) {
        throw new IllegalArgumentException("blockSize must be in 1..64, got " + blockSize);
      }
    }
  }

  public final Vec<UInt> codes;
  public final UInt scale = in(uint(8));
  public final Bool inValid = in(bool());
  public final Vec<UInt> values;
  public final Bool outValid = out(bool());
  private final Config config;

  public MxDequantizer(Config c) {
    config = c;
    codes = in(Vec.of(c.blockSize(), () -> uint(c.format().bits())));
    values = out(Vec.of(c.blockSize(), () -> uint(c.output().totalBits())));
    for (int i = 0; i < c.blockSize(); i++) {
      MxDecoder decoder = instance("decoder_" + i, new MxDecoder(new MxDecoder.Config(c.format(), c.output())));
      decoder.code.set(codes.get(i));
      decoder.scale.set(scale);
      values.get(i).set(regNext("value_q" + i, decoder.value));
    }
    Bool valid = regInit("valid_q", bool(), 0);
    valid.set(inValid);
    outValid.set(valid);
  }

  @Override
  public String moduleName() {
    return "MxDequantizer_" + config.format().cliName() + "_" + MxDecoder.outputName(config.output()) + "_n"
        + config.blockSize();
  }

  /** Registers {@code mx-dequantizer}. */
  public static final class Generator extends DeclaredGenerator {
    public Generator() {
      super("mx-dequantizer", "MX block (codes + E8M0 scale) -> FP32/FP16 values, latency 1 cycle",
          List.of(
              ParamSpec.choice("format", "fp8_e4m3", MxFormat.cliNames(), "MX element type"),
              ParamSpec.choice("output", "fp32", List.of("fp32", "fp16"), "output float format"),
              ParamSpec.integer("blockSize", 32, 1, 64, "elements per block (OCP: 32)")),
          p -> new MxDequantizer(new Config(MxFormat.fromCliName(p.get("format")),
              MxDecoder.outputLayout(p.get("output")), p.getInt("blockSize"))));
    }
  }
}
