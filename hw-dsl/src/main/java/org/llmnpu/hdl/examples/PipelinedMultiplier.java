package org.llmnpu.hdl.examples;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.sint;

import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.gen.DeclaredGenerator;
import org.llmnpu.hdl.gen.ParamSpec;

/**
 * Signed multiplier {@code product = a * b} (exact, {@code aWidth + bWidth} bits) with
 * {@code stages} register stages: operands are registered, the product is registered
 * {@code stages - 1} more times (synthesis may retime the multiplier into them).
 * Latency: {@code stages} cycles from {@code inValid} to {@code outValid}; throughput one
 * product per cycle.
 */
public final class PipelinedMultiplier extends HwModule {
  /** Widths in 2..64, {@code stages} in 1..8. */
  public record Config(int aWidth, int bWidth, int stages) {
    public Config {
      if (aWidth < 2 || aWidth > 64 || bWidth < 2 || bWidth > 64) {
        throw new IllegalArgumentException("aWidth and bWidth must be in 2..64, got " + aWidth + ", " + bWidth);
      }
      if (stages < 1 || stages > 8) {
        throw new IllegalArgumentException("stages must be in 1..8, got " + stages);
      }
    }
  }

  public final SInt a;
  public final SInt b;
  public final Bool inValid = in(bool());
  public final SInt product;
  public final Bool outValid = out(bool());
  private final Config config;

  public PipelinedMultiplier(Config c) {
    config = c;
    a = in(sint(c.aWidth()));
    b = in(sint(c.bWidth()));
    product = out(sint(c.aWidth() + c.bWidth()));

    SInt aReg = regNext("a_q", a);
    SInt bReg = regNext("b_q", b);
    Bool valid = regInit("valid_q", bool(), 0);
    valid.set(inValid);
    SInt stage = aReg.mul(bReg);
    Bool stageValid = valid;
    for (int s = 1; s < c.stages(); s++) {
      stage = regNext("product_q" + s, stage);
      Bool v = regInit("valid_q" + s, bool(), 0);
      v.set(stageValid);
      stageValid = v;
    }
    product.set(stage);
    outValid.set(stageValid);
  }

  @Override
  public String moduleName() {
    return "PipelinedMultiplier_" + config.aWidth() + "x" + config.bWidth() + "_s" + config.stages();
  }

  /** Registers {@code multiplier}. */
  public static final class Generator extends DeclaredGenerator {
    public Generator() {
      super("multiplier", "pipelined signed multiplier",
          List.of(
            ParamSpec.integer("aWidth", 8, 2, 64, "bits of operand a (signed)"),
            ParamSpec.integer("bWidth", 8, 2, 64, "bits of operand b (signed)"),
            ParamSpec.integer("stages", 2, 1, 8, "latency in cycles")),
          p -> new PipelinedMultiplier(new Config(p.getInt("aWidth"), p.getInt("bWidth"), p.getInt("stages"))));
    }
  }
}
