package org.llmnpu.rtl.npu;

import static org.llmnpu.rtl.npu.NpuParameter.EXT_MEM_MIB;
import static org.llmnpu.rtl.npu.NpuParameter.MEM_BYTES_PER_CYCLE;
import static org.llmnpu.rtl.npu.NpuParameter.MEM_LATENCY;
import static org.llmnpu.rtl.npu.NpuParameter.SPAD_BANKS;
import static org.llmnpu.rtl.npu.NpuParameter.SPAD_KIB;
import static org.llmnpu.rtl.npu.NpuParameter.WATCHDOG_CYCLES;

/**
 * The NPU's memories and the DMA between them: the banked scratchpad, the external memory (its size in the RTL, its
 * timing in the simulation model), the watchdog on memory waits and the MX decoders on the load path. Allowed values
 * and defaults: {@link NpuParameter}; errors name the flat parameter.
 *
 * @param spadKiB        {@code spadKiB}
 * @param spadBanks      {@code spadBanks}
 * @param extMemMiB      {@code extMemMiB}
 * @param latency        {@code memLatency}, cycles
 * @param bytesPerCycle  {@code memBytesPerCycle}
 * @param watchdogCycles {@code watchdogCycles}
 * @param mxLoad         {@code mxLoad}: {@code loadmx} decodes E4M3, E5M2 and INT8 MX elements ({@link NpuLoadMx})
 * @param bus            {@code bus}: {@code native} (the {@code mem_*} port) or {@code axi} (the AXI4 top,
 *                       {@code org.llmnpu.rtl.npu.axi.NpuAxi})
 */
public record NpuMemoryConfig(int spadKiB, int spadBanks, int extMemMiB, int latency, int bytesPerCycle,
                              int watchdogCycles, boolean mxLoad, String bus) {
  /** The memory configuration on the native bus. */
  public NpuMemoryConfig(int spadKiB, int spadBanks, int extMemMiB, int latency, int bytesPerCycle,
                         int watchdogCycles, boolean mxLoad) {
    this(spadKiB, spadBanks, extMemMiB, latency, bytesPerCycle, watchdogCycles, mxLoad,
        NpuParameter.BUS.defaultValue());
  }

  public NpuMemoryConfig {
    bus = NpuParameter.BUS.canonical(bus);
    SPAD_KIB.check(spadKiB);
    SPAD_BANKS.check(spadBanks);
    EXT_MEM_MIB.check(extMemMiB);
    MEM_LATENCY.check(latency);
    MEM_BYTES_PER_CYCLE.check(bytesPerCycle);
    WATCHDOG_CYCLES.check(watchdogCycles);
  }
}
