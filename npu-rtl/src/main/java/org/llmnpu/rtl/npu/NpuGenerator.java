package org.llmnpu.rtl.npu;

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

  @Override
  public List<ParamSpec> params() {
    NpuConfig d = NpuConfig.defaults();
    return List.of(
        ParamSpec.integer("rows", d.rows(), 4, 64, "MAC array rows = columns (power of two); bytes per line and beat"),
        ParamSpec.integer("spadKiB", d.spadKiB(), 1, 65536, "scratchpad KiB (power of two)"),
        ParamSpec.integer("spadBanks", d.spadBanks(), 1, 16, "scratchpad banks (power of two)"),
        ParamSpec.integer("extMemMiB", d.extMemMiB(), 1, 4096, "external-memory MiB"),
        ParamSpec.integer("mTile", d.mTile(), 2, 1024, "periphery accumulator depth"),
        ParamSpec.integer("accWidth", d.accWidth(), 2, 32, "accumulator bits"),
        ParamSpec.integer("icAccumDepth", d.icAccumDepth(), 0, 65535, "K tiles folded per write-back, 0 = all"),
        ParamSpec.integer("maxM", d.maxM(), 1, 65535, "largest GEMM M"),
        ParamSpec.integer("maxK", d.maxK(), 1, 65535, "largest GEMM K"),
        ParamSpec.integer("maxN", d.maxN(), 1, 65535, "largest GEMM N"),
        ParamSpec.integer("watchdogCycles", d.watchdogCycles(), 2, 1 << 24, "cycles a memory wait may last"),
        ParamSpec.integer("dspLanes", d.dspLanes(), 1, 32, "Vector DSP lanes (power of two)"),
        ParamSpec.integer("dspRows", d.dspRows(), 16, 65536, "Vector DSP buffer rows (power of two)"),
        ParamSpec.integer("dspProgramDepth", d.dspProgramDepth(), 16, 4096, "Vector DSP program words (power of two)"),
        ParamSpec.integer("dspMaxRunCycles", (int) d.dspMaxRunCycles(), 16, 1 << 30,
            "cycles a DSP run may take before a watchdog error"),
        ParamSpec.integer("dspStages", d.dspStages(), 1, 4,
            "Vector DSP execute stages (4 meets the 5.75 ns target clock; more stages, more interlock stalls)"),
        ParamSpec.choice("engine", d.engine(), NpuConfig.ENGINES, "GEMM engine: systolic array or PiM macro (bit-serial, or k bits/cycle)"),
        ParamSpec.integer("weightRowsPerCycle", d.weightRowsPerCycle(), 1, NpuConfig.MAX_WEIGHT_ROWS_PER_CYCLE,
            "W rows a GEMM copies into the engine per cycle (power of two <= rows; scratchpad read ports)"),
        ParamSpec.choice("ppu", String.valueOf(d.ppu()), List.of("true", "false"),
            "the PPM's PPU (table nonlinearity after requantization); the PPM itself is always built"),
        ParamSpec.choice("mxLoad", String.valueOf(d.mxLoad()), List.of("true", "false"),
            "MX element decoding on the load path (loadmx: E4M3, E5M2, INT8 elements to INT8 codes)"),
        ParamSpec.choice("sparsity", d.sparsity(), NpuConfig.SPARSITIES,
            "N:M mode the MAC array is built for (dense GEMMs always run; needs engine systolic, weightRowsPerCycle 1)"),
        ParamSpec.integer("commandQueueDepth", d.commandQueueDepth(), 1, org.llmnpu.isa.MachineParams.MAX_COMMAND_QUEUE_DEPTH,
            "commands in the command queue: the running one and up to depth - 1 read ahead (1 = no prefetch)"),
        ParamSpec.choice("clockGating", d.clockGating(), List.of("on", "off", "checked"),
            "clock gates on the GEMM engine, Vector DSP and PPM (checked: ungated, with simulation checks of the enables)"));
  }

  @Override
  public HwModule build(Params p) {
    return new Npu(config(p));
  }

  /** The NPU configuration of validated parameters (as {@link #params()} declares them). */
  static NpuConfig config(Params p) {
    NpuConfig d = NpuConfig.defaults();
    return new NpuConfig(p.getInt("rows"), p.getInt("spadKiB"), p.getInt("spadBanks"), p.getInt("extMemMiB"),
        p.getInt("mTile"), p.getInt("accWidth"), p.getInt("icAccumDepth"), p.getInt("maxM"), p.getInt("maxK"),
        p.getInt("maxN"), d.memLatency(), d.memBytesPerCycle(), p.getInt("watchdogCycles"), p.getInt("dspLanes"),
        p.getInt("dspRows"), p.getInt("dspProgramDepth"), p.getInt("dspMaxRunCycles"), p.get("engine"),
        p.getInt("weightRowsPerCycle"),
        Boolean.parseBoolean(p.get("ppu")), Boolean.parseBoolean(p.get("mxLoad")), p.get("sparsity"),
        p.getInt("commandQueueDepth"), p.getInt("dspStages"), p.get("clockGating"));
  }
}
