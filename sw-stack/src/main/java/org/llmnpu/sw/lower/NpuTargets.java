package org.llmnpu.sw.lower;

import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;

/**
 * Machines the lowering targets, built from the same numbers as {@code npu-rtl}'s configurations
 * (the software stack does not depend on the RTL).
 */
public final class NpuTargets {
  /** The default NPU's PPM latency: {@code npu-rtl}'s {@code PpmConfig.latency()} with the PPU, plus its input register. */
  static final int DEFAULT_PPM_LATENCY = 24;

  private NpuTargets() {
  }

  /**
   * The default NPU ({@code NpuConfig.defaults()}): 16×16 array, 256 KiB scratchpad in 4 banks,
   * 16 MiB memory, mTile 16, 32-bit accumulators, maxM/K/N 64/512/128, memory latency 32 cycles
   * and 16 bytes per cycle, watchdog 4096, the default Vector DSP, one W row per cycle, and the PPM with
   * its PPU (latency 24 cycles: the NPU's input register, 8 requantization stages and the PPU's 15), dense GEMMs only, and a
   * command queue of 4 commands (the fetcher reads up to 3 ahead).
   */
  public static MachineParams defaultNpu() {
    return MachineParams.builder().rows(16).lineBytes(16).spadBytes(256 * 1024).spadBanks(4).extMemBytes(16L << 20)
        .mTile(16).accWidth(32).icAccumDepth(0).maxM(64).maxK(512).maxN(128).memLatency(32).memBytesPerCycle(16)
        .watchdogCycles(4096).ppmLatency(DEFAULT_PPM_LATENCY).ppu(true).commandQueueDepth(4).build();
  }

  /**
   * The default NPU with its MAC array built for 2:4 sparsity ({@code MachineParams.sparsity} 1, the
   * RTL's {@code NpuConfig} {@code sparsity} parameter): dense GEMMs and 2:4 GEMMs, whose K passes
   * cover 2·rows of K.
   */
  public static MachineParams sparse24() {
    return defaultNpu().withUnits(DEFAULT_PPM_LATENCY, true, Command.S2_4);
  }
}
