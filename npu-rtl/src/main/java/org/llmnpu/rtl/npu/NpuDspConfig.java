package org.llmnpu.rtl.npu;

import static org.llmnpu.rtl.npu.NpuParameter.DSP_LANES;
import static org.llmnpu.rtl.npu.NpuParameter.DSP_MAX_RUN_CYCLES;
import static org.llmnpu.rtl.npu.NpuParameter.DSP_PROGRAM_DEPTH;
import static org.llmnpu.rtl.npu.NpuParameter.DSP_ROWS;
import static org.llmnpu.rtl.npu.NpuParameter.DSP_STAGES;

/**
 * The NPU's Vector DSP ({@link org.llmnpu.rtl.dsp.VectorDsp}). Allowed values and defaults: {@link NpuParameter};
 * errors name the flat parameter ({@code dspLanes}, ...).
 *
 * @param lanes        {@code dspLanes}: FP16 elements a buffer row holds
 * @param rows         {@code dspRows}: buffer rows
 * @param programDepth {@code dspProgramDepth}: program words
 * @param maxRunCycles {@code dspMaxRunCycles}: cycles one {@code dsprun} may take before a watchdog halt
 * @param stages       {@code dspStages}: execute stages ({@link org.llmnpu.isa.dsp.DspPipeline}); 4 pipelines the FP
 *                     units so that the DSP meets the 5.75 ns target clock, and a {@code dsprun}'s cycles then include
 *                     the interlock's stalls
 * @param permute      {@code dspPermute}: the buffer permutations ({@code LDS}, {@code STS}, {@code ROT}, {@code LDG},
 *                     {@code STG}; {@code VectorDsp.Config#permute}); without them those opcodes execute as NOPs on
 *                     the hardware and in the golden ({@code MachineParams.DspParams#permute})
 */
public record NpuDspConfig(int lanes, int rows, int programDepth, long maxRunCycles, int stages, boolean permute) {
  public NpuDspConfig {
    DSP_LANES.check(lanes);
    DSP_ROWS.check(rows);
    DSP_PROGRAM_DEPTH.check(programDepth);
    DSP_MAX_RUN_CYCLES.check(maxRunCycles);
    DSP_STAGES.check(stages);
  }

  /** A DSP without the buffer permutations. */
  public NpuDspConfig(int lanes, int rows, int programDepth, long maxRunCycles, int stages) {
    this(lanes, rows, programDepth, maxRunCycles, stages, false);
  }
}
