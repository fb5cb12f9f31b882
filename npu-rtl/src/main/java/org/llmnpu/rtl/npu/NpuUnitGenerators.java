package org.llmnpu.rtl.npu;

import java.util.List;
import java.util.function.Function;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.ParamSpec;
import org.llmnpu.hdl.gen.Params;
import org.llmnpu.rtl.npu.axi.NpuAxiMaster;
import org.llmnpu.rtl.npu.axi.NpuAxiStatus;

/**
 * Registers each of the {@link Npu}'s unit modules as a block of its own ({@code npu-counters},
 * {@code npu-scratchpad}, …), so that every unit is generated, linted and synthesized alone
 * ({@code ./npu generate npu-<unit>}, {@code ./npu report ppa npu-<unit>}). A unit takes the NPU's parameters (those
 * of {@code npu}) and is built exactly as the NPU of those parameters instantiates it; parameters the unit does not
 * use do not change its Verilog.
 */
public abstract class NpuUnitGenerators implements BlockGenerator {
  private final String unit;
  private final String description;
  private final Function<NpuConfig, HwModule> build;

  private NpuUnitGenerators(String unit, String description, Function<NpuConfig, HwModule> build) {
    this.unit = unit;
    this.description = description;
    this.build = build;
  }

  @Override
  public final String name() {
    return "npu-" + unit;
  }

  @Override
  public final String description() {
    return description;
  }

  @Override
  public final List<ParamSpec> params() {
    return new NpuGenerator().params();
  }

  @Override
  public final HwModule build(Params p) {
    return build.apply(NpuGenerator.config(p));
  }

  /** {@code npu-counters}: {@link NpuCounters}. */
  public static final class Counters extends NpuUnitGenerators {
    public Counters() {
      super("counters", "the NPU's performance counters (48 bits each, split carry), their read port and image",
          NpuCounters::new);
    }
  }

  /** {@code npu-watchdog}: {@link NpuWatchdog}. */
  public static final class Watchdog extends NpuUnitGenerators {
    public Watchdog() {
      super("watchdog", "the NPU's memory-wait watchdog (cycles without progress, WATCHDOG at watchdogCycles)",
          NpuWatchdog::new);
    }
  }

  /** {@code npu-snapshot}: {@link NpuSnapshot}. */
  public static final class Snapshot extends NpuUnitGenerators {
    public Snapshot() {
      super("snapshot", "the NPU's snapshot unit: the counters latched at dispatch, cut into store lines",
          NpuSnapshot::new);
    }
  }

  /** {@code npu-scratchpad}: {@link NpuScratchpad}. */
  public static final class Scratchpad extends NpuUnitGenerators {
    public Scratchpad() {
      super("scratchpad", "the NPU's banked scratchpad (SRAM macros) with its write arbiter and read ports",
          NpuScratchpad::new);
    }
  }

  /** {@code npu-backend}: {@link NpuBackEnd}. */
  public static final class BackEnd extends NpuUnitGenerators {
    public BackEnd() {
      super("backend", "the NPU's decoupled GEMM back-end: run, drain of INT32 result lines (accumulate-into), "
          + "scoreboard", NpuBackEnd::new);
    }
  }

  /** {@code npu-ppm}: the NPU's PPM ({@link org.llmnpu.rtl.ppm.LinePpm}, as {@link NpuPpm} instantiates it). */
  public static final class Ppm extends NpuUnitGenerators {
    public Ppm() {
      super("ppm", "the NPU's PPM at one INT32 line a cycle (line/4 lanes): per-column parameter memory, "
          + "requantization to INT8, the PPU's C-LUT activation", NpuPpm::module);
    }
  }

  /** {@code npu-dsp}: the NPU's Vector DSP ({@link org.llmnpu.rtl.dsp.VectorDsp}, as {@link NpuDsp} builds it). */
  public static final class Dsp extends NpuUnitGenerators {
    public Dsp() {
      super("dsp", "the NPU's Vector DSP (dspLanes FP16 lanes, dspStages execute stages) with its line-wide program "
          + "and table ports and the copy datapath's buffer window", NpuDsp::module);
    }
  }

  /** {@code npu-predecode}: {@link NpuPredecode}. */
  public static final class Predecode extends NpuUnitGenerators {
    public Predecode() {
      super("predecode", "the NPU fetch's predecode: a landing command's shape and range checks and operand ends "
          + "(registered partial products, then narrow sums)", NpuPredecode::new);
    }
  }

  /** {@code npu-load4}: {@link NpuLoad4}. */
  public static final class Load4 extends NpuUnitGenerators {
    public Load4() {
      super("load4", "the NPU load path's INT4 unpacker: a beat of signed nibbles to two INT8 scratchpad lines",
          NpuLoad4::new);
    }
  }

  /** {@code npu-loadmx}: {@link NpuLoadMx}. */
  public static final class LoadMx extends NpuUnitGenerators {
    public LoadMx() {
      super("loadmx", "the NPU load path's MX element decoders (E4M3, E5M2, INT8 bytes to INT8 codes)",
          NpuLoadMx::new);
    }
  }

  /** {@code npu-fetch}: {@link NpuFetchUnit}. */
  public static final class Fetch extends NpuUnitGenerators {
    public Fetch() {
      super("fetch", "the NPU's fetcher: command reads ahead into the command queue (commandQueueDepth), response "
          + "routing between fetcher and DMA, the landing register; commands to the controller as a stream",
          NpuFetchUnit::new);
    }
  }

  /** {@code npu-dma}: {@link NpuDmaUnit}. */
  public static final class Dma extends NpuUnitGenerators {
    public Dma() {
      super("dma", "the NPU's DMA: memory and scratchpad address walks with their shape, a beat's byte masks, the "
          + "memory port arbitrated between the DMA's beats and the fetcher's reads", NpuDmaUnit::new);
    }
  }

  /** {@code npu-controller}: {@link NpuController}, with its ports to the units of the NPU of the same parameters. */
  public static final class Controller extends NpuUnitGenerators {
    public Controller() {
      super("controller", "the NPU's controller: state machine, command register and decode, the DMA's "
          + "steps, GEMM control and weight stream, DSP and PPM command sequencing",
          NpuController::new);
    }
  }

  /** {@code npu-axi-master}: {@link NpuAxiMaster} of the AXI top ({@code bus=axi}), for the NPU's line width. */
  public static final class AxiMaster extends NpuUnitGenerators {
    public AxiMaster() {
      super("axi-master", "the AXI NPU's AXI4 master: a two-entry request buffer, INCR bursts from the native port's "
          + "run hint (up to 256 beats, within 4 KiB), read bursts outstanding, write responses checked",
          c -> new NpuAxiMaster(c.machine().lineBytes()));
    }
  }

  /** {@code npu-axi-status}: {@link NpuAxiStatus} of the AXI top ({@code bus=axi}; no parameter changes it). */
  public static final class AxiStatus extends NpuUnitGenerators {
    public AxiStatus() {
      super("axi-status", "the AXI NPU's run status: start, end after the last write response, error cause, the "
          + "counter scan for the AXI4-Lite register map", c -> new NpuAxiStatus());
    }
  }
}
