package org.llmnpu.rtl.mac;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Module;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.ParamSpec;
import org.llmnpu.hdl.gen.Params;

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
    all.add(ParamSpec.integer("maxM", 64, 1, 65536, "largest M the activation buffer holds"));
    all.add(ParamSpec.integer("maxK", 64, 1, 65536, "largest K the buffers hold"));
    all.add(ParamSpec.integer("maxN", 64, 1, 65536, "largest N the weight buffer and result memories hold"));
    return all;
  }

  @Override
  public Module build(Params p) {
    return new GemmEngine(new GemmEngineConfig(MacArrayGenerator.arrayConfig(p), p.getInt("maxM"),
        p.getInt("maxK"), p.getInt("maxN")));
  }
}
