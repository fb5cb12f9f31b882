package org.llmnpu.rtl.vector;

import static org.llmnpu.hdl.Hw.uint;

import java.util.List;
import java.util.function.Function;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.gen.ParamSpec;
import org.llmnpu.hdl.gen.Params;

/**
 * What the FP16 and FP32 fused multiply-add units ({@link Fp16Fma}, {@link Fp32Fma}) share: the
 * ports {@code a, b, c → result} of one IEEE width, the timing {@link Config} ({@code latency} and
 * {@code stages}), the register of the exact sum, the module name that encodes the timing and the
 * generator parameters. Each unit's class comment gives its numerics and what each stage holds.
 */
public abstract sealed class FmaUnit extends HwModule permits Fp16Fma, Fp32Fma {
  /**
   * Output latency 0 or 1, and {@code stages} internal pipeline registers 0..3 (see the units' class
   * comments), each one more cycle of latency.
   */
  public record Config(int latency, int stages) {
    /** Without internal registers. */
    public Config(int latency) {
      this(latency, 0);
    }

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

  /** The operands, IEEE codes of the unit's width: {@code result = a·b + c}. */
  public final UInt a, b, c;
  /** The fused multiply-add, rounded once, {@code stages + latency} cycles after its operands. */
  public final UInt result;
  protected final Config config;

  FmaUnit(int width, Config config) {
    this.config = config;
    a = in(uint(width));
    b = in(uint(width));
    c = in(uint(width));
    result = out(uint(width));
  }

  /** {@code v}, or {@code v} one cycle later with the exact-sum register (stages >= 1). */
  protected final <T extends HwValue> T stage(String name, T v) {
    return config.stages() >= 1 ? regNext("split_" + name, v) : v;
  }

  /** Drives {@code result} with {@code value}, through the output register with latency 1. */
  protected final void setResult(UInt value) {
    result.set(config.latency() == 1 ? regNext("result_q", value) : value);
  }

  /** {@code Fp16Fma_d0}, {@code Fp32Fma_d1_split}, {@code Fp16Fma_d0_s3}: the class, the latency, the stages. */
  @Override
  public final String moduleName() {
    return getClass().getSimpleName() + "_d" + config.latency() + (config.stages() == 1 ? "_split"
        : config.stages() > 1 ? "_s" + config.stages() : "");
  }

  /** A unit's generator from its {@link #generatorParams()}: {@code latency} (default 1) and {@code stages} ({@link FpStages}). */
  static Function<Params, HwModule> factory(Function<Config, FmaUnit> unit) {
    return p -> unit.apply(new Config(p.getInt("latency"), p.getInt("stages")));
  }

  /** The generator parameters of every FMA unit. */
  static List<ParamSpec> generatorParams() {
    return List.of(ParamSpec.integer("latency", 1, 0, 1, "0: combinational; 1: registered result"), FpStages.param());
  }
}
