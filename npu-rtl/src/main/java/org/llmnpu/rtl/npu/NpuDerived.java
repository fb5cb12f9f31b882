package org.llmnpu.rtl.npu;

import org.llmnpu.isa.EngineTiming;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.rtl.dsp.VectorDsp;
import org.llmnpu.rtl.mac.GemmBackend;
import org.llmnpu.rtl.mac.GemmEngine;
import org.llmnpu.rtl.ppm.PpmConfig;

/**
 * What an {@link NpuConfig}'s parameters make: the configurations of the units the {@link Npu} instantiates (its
 * Vector DSP, its PPM, its GEMM engine) and the ISA's view of the NPU, {@link MachineParams}. {@link NpuConfig} is the
 * parameter record; it reads these through one-line accessors ({@link NpuConfig#dsp()}, {@link NpuConfig#ppm()},
 * {@link NpuConfig#machine()}, {@link NpuConfig#weightStream()}), and a new unit parameter that changes a derived
 * configuration changes it here. Each value is computed anew from the record (they are small; nothing is cached).
 */
final class NpuDerived {
  /** Table segments of the DSP's numerics tables (exp, reciprocal, rsqrt). */
  static final int DSP_TABLE_SEGMENTS = 12;
  /** Polynomial degree of the DSP's numerics tables. */
  static final int DSP_TABLE_DEGREE = 2;

  private NpuDerived() {
  }

  /**
   * The Vector DSP inside, its pipelined units on clock gates of their own as {@link NpuConfig#clockGatingMode} builds
   * the NPU's (the gates nest inside the DSP's).
   */
  static VectorDsp.Config dsp(NpuConfig c) {
    return new VectorDsp.Config(c.dspLanes(), c.dspRows(), c.dspProgramDepth(), DSP_TABLE_SEGMENTS, DSP_TABLE_DEGREE,
        c.dspStages(), false, c.dspPermute()).withPipeGating(c.clockGatingMode());
  }

  /**
   * The PPM inside: {@code rows/4} lanes (one INT32 line a cycle; {@code rows} with {@code ppmWide}), INT8 codes, the
   * default PPU table shape when {@code ppu}, else requantization alone.
   */
  static PpmConfig ppm(NpuConfig c) {
    int lanes = c.ppmWide() ? c.rows() : Math.max(1, c.rows() / 4);
    return new PpmConfig(lanes, 8, c.ppu() ? PpmConfig.Activation.PPU : PpmConfig.Activation.NONE, 16, 2, 16);
  }

  /**
   * What programs may assume about the NPU (the contract with the golden ISA simulator): the parameters one for one,
   * a line of {@code rows} bytes, the DSP's tables and the PPM's latency as the RTL builds them ({@link #ppm} plus
   * the PPM's input register).
   */
  static MachineParams machine(NpuConfig c) {
    MachineParams.DspParams dspParams = new MachineParams.DspParams(c.dspLanes(), c.dspRows(), c.dspProgramDepth(),
        DSP_TABLE_SEGMENTS, DSP_TABLE_DEGREE, c.dspMaxRunCycles(), c.dspStages(), c.dspPermute());
    return MachineParams.builder().rows(c.rows()).lineBytes(c.rows()).spadBytes(c.spadKiB() * 1024)
        .spadBanks(c.spadBanks()).extMemBytes(c.extMemMiB() * (1L << 20)).mTile(c.mTile()).accWidth(c.accWidth())
        .icAccumDepth(c.icAccumDepth()).maxM(c.maxM()).maxK(c.maxK()).maxN(c.maxN()).memLatency(c.memLatency())
        .memBytesPerCycle(c.memBytesPerCycle()).watchdogCycles(c.watchdogCycles()).dsp(dspParams)
        .weightRowsPerCycle(c.weightRowsPerCycle()).ppmLatency(ppm(c).latency() + NpuPpm.INPUT_LATENCY).ppu(c.ppu())
        .sparsity(c.sparsityCode()).mxLoad(c.mxLoad()).commandQueueDepth(c.commandQueueDepth()).ppmGate(c.ppmGate())
        .xKeep(c.xKeep()).ppmWide(c.ppmWide()).build();
  }

  /**
   * Whether the NPU streams weights from the memory into its GEMM engine ({@code gemm wStream=1}): the systolic
   * engine with one W row a cycle, dense or N:M ({@code MachineParams.weightStream()} and
   * {@code EngineTiming.weightStream()}).
   */
  static boolean weightStream(NpuConfig c) {
    return machine(c).weightStream() && c.engineTiming().weightStream();
  }

  /**
   * The GEMM engine the NPU instantiates: the PiM one, or the systolic {@link GemmEngine} (one W row a cycle when it
   * is N:M or streams weights, else {@code weightRowsPerCycle}).
   */
  static GemmBackend gemmEngine(NpuConfig c) {
    EngineTiming t = c.engineTiming();
    boolean sparse = c.weightSparsity().sparse();
    boolean stream = weightStream(c);
    return t.pim() ? new PimGemmBackend(c.gemm(), t.bitsPerCycle(), c.weightRowsPerCycle())
        : GemmEngine.of(c.gemm(), sparse || stream ? 1 : c.weightRowsPerCycle(), sparse, stream, c.clockGatingMode());
  }
}
