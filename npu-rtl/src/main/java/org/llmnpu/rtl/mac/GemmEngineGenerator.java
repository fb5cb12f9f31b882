package org.llmnpu.rtl.mac;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.ParamSpec;
import org.llmnpu.hdl.gen.Params;
import org.llmnpu.rtl.ppm.PpmConfig;

/** Registers {@code gemm-engine}: {@link GemmEngine}, the array with buffers and sequencing. */
public final class GemmEngineGenerator implements BlockGenerator {
  @Override
  public String name() {
    return "gemm-engine";
  }

  @Override
  public String description() {
    return "tiled INT8 GEMM engine: MAC array + X/W buffers + psum memories + sequencer, start/done";
  }

  @Override
  public List<ParamSpec> params() {
    List<ParamSpec> all = new ArrayList<>(MacArrayGenerator.arrayParams());
    all.add(ParamSpec.integer("maxM", 16, 1, 65536, "largest M the activation buffer holds"));
    all.add(ParamSpec.integer("maxK", 32, 1, 65536, "largest K the buffers hold"));
    all.add(ParamSpec.integer("maxN", 16, 1, 65536, "largest N the weight buffer and result memories hold"));
    all.add(ParamSpec.choice("ppm", "off", List.of("off", "none", "relu", "relu6", "ppu"),
        "post-processing of the INT32 results: off, or the PPM (bias + requant to INT8) with this activation"));
    return all;
  }

  @Override
  public HwModule build(Params p) {
    GemmEngineConfig c = new GemmEngineConfig(MacArrayGenerator.arrayConfig(p), p.getInt("maxM"),
        p.getInt("maxK"), p.getInt("maxN"));
    if (p.get("ppm").equals("off")) {
      return new GemmEngine(c);
    }
    PpmConfig.Activation act = PpmConfig.Activation.valueOf(p.get("ppm").toUpperCase(java.util.Locale.ROOT));
    return new GemmPpmEngine(c, PpmConfig.of(c.array().cols(), 8, act));
  }
}
