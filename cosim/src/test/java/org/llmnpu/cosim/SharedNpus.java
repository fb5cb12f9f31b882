package org.llmnpu.cosim;

import org.llmnpu.rtl.npu.NpuConfig;

/**
 * NPU configurations that several co-simulation classes share, so that a cold test run builds each of these
 * Verilator models once (the model cache is keyed by the Verilog, so one configuration is one build, whichever class
 * asks first). Each is the union of the options its users need: a class checks its own option on it, and the options
 * it does not use are there for the other classes (a GEMM without {@code gate=1} on an NPU built with {@code ppmGate}
 * is an ordinary fused GEMM; a program without DSP commands does not see the DSP's program depth). The golden ISA
 * simulator and the cycle model take the whole configuration, so every bit-exact and cycle-exact check still holds
 * for the NPU it runs on.
 *
 * <p>Until 2026-12-07 these were seven configurations of their own: a small NPU each with the SwiGLU gate
 * (GatedGemmCosimTest), with {@code loadmx} (MxLoadCosimTest), with checked clock gates (ClockGatingCosimTest),
 * without the PPU (PpmCosimTest, FusedGemmPpmCosimTest), with 512 DSP program words (ReusedDspModelCosimTest) and with
 * one command slot (CommandPrefetchCosimTest); the 16-byte-line NPU with N up to 32 (DspWideLinesCosimTest,
 * DspLineRateCosimTest), up to 256 (FusedGemmPpmCosimTest) and up to 256 with the gate (GatedGemmCosimTest); and the
 * small NPU with {@code pim-k4} once with 2 weight rows a cycle (WeightRowsCosimTest) and once with 16-bit psums and
 * a write-back per K tile (PimEngineProgramCosimTest). A small NPU's build costs 19–25 s of CPU and a 16-byte-line
 * one's 26–30 s (user+sys, Verilator 5.006 at -O1, 2026-12-07).
 */
public final class SharedNpus {
  /**
   * The small NPU ({@link NpuConfig#small()}: 4×4 array, 4-byte lines, a 4-lane DSP) with the SwiGLU gate operand
   * ({@code ppmGate}), {@code loadmx} decoding ({@code mxLoad}) and every clock gate checked ({@code checked}: a unit
   * whose gate is off has registers that change freely, so a wrong enable shows as a bit-exactness failure).
   */
  public static final NpuConfig SMALL_FEATURED = NpuConfig.small().toBuilder().ppmGate(true).mxLoad(true)
      .clockGating("checked").build();

  /**
   * The small NPU with the options turned the other way: no PPU (the PPM requantizes only), one command slot (no
   * prefetch) and the 512 program words of edge-64's DSP.
   */
  public static final NpuConfig SMALL_REDUCED = NpuConfig.small().toBuilder().ppu(false).commandQueueDepth(1)
      .dspProgramDepth(512).build();

  /**
   * The smallest NPU with the default 16-byte line: 16×16 array, 16 KiB scratchpad, a 4-lane DSP (several chunks a
   * line), N up to 256 (above the array's rows, ragged) and the SwiGLU gate (four PPM lanes: the gate is a quarter of
   * the line read).
   */
  public static final NpuConfig WIDE_LINES = new NpuConfig(16, 16, 2, 1, 16, 32, 0, 16, 64, 256, 5, 16, 256, 4, 64,
      256, 1L << 16).toBuilder().ppmGate(true).build();

  /**
   * The small NPU with the PiM engine at 4 input bits a cycle ({@code pim-k4}), 16-bit psums that random INT8 data
   * saturates, a psum write-back per K tile ({@code icAccumDepth} 1) and two weight rows a cycle into its bitcells.
   */
  public static final NpuConfig SMALL_PIM_K4 = NpuConfig.small().toBuilder().engine("pim-k4").accWidth(16)
      .icAccumDepth(1).weightRowsPerCycle(2).build();

  private SharedNpus() {
  }
}
