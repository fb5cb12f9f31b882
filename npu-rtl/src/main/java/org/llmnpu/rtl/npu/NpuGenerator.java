package org.llmnpu.rtl.npu;

import java.util.Arrays;
import java.util.List;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.ParamSpec;
import org.llmnpu.hdl.gen.Params;

/** Registers {@code npu}: the {@link Npu} system (command fetch, DMA, scratchpad, GEMM engine, counters). */
public final class NpuGenerator implements BlockGenerator {
  @Override
  public String name() {
    return "npu";
  }

  @Override
  public String description() {
    return "the NPU system: fetches npu-isa commands from external memory; DMA, banked scratchpad, GEMM engine, "
        + "Vector DSP, counters, error halts";
  }

  /** The parameters that shape the Verilog ({@link NpuParameter#rtl()}), as {@link NpuParameter} declares them. */
  @Override
  public List<ParamSpec> params() {
    return Arrays.stream(NpuParameter.values()).filter(NpuParameter::rtl).map(NpuParameter::spec).toList();
  }

  @Override
  public HwModule build(Params p) {
    NpuConfig c = config(p);
    return c.axiBus() ? new org.llmnpu.rtl.npu.axi.NpuAxi(c) : new Npu(c);
  }

  /** The NPU configuration of validated parameters (as {@link #params()} declares them), default memory timing. */
  static NpuConfig config(Params p) {
    NpuConfigBuilder b = NpuConfig.builder();
    p.asMap().forEach((name, value) -> b.set(NpuParameter.of(name), value));
    return b.build();
  }
}
