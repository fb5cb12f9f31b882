package org.llmnpu.cosim.dllm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.llmnpu.cosim.NpuRtl;
import org.llmnpu.cosim.ProgramCosim;
import org.llmnpu.cosim.WaveCapture;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.sw.dllm.DenoiserProgram;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.shadow.EstimationProgram;

/**
 * A stories260K denoiser pass (every layer's GEMMs and the classifier) as one program on the default NPU's RTL
 * (Verilator) at 15, 16, 17 and 32 rows over 40 keys: bit-exact with the golden ISA simulator (memory, status,
 * counters), the cycle model's cycles, and the staircase at the row tile measured on the RTL itself.
 */
class DenoiserPassCosimTest {
  @Test
  void passesAreBitExactTakeTheModelsCyclesAndStepAtTheRowTileOnTheRtl() throws Exception {
    NpuConfig config = NpuConfig.defaults();
    MachineParams p = config.machine();
    ModelConfig c = ModelConfig.stories260K();
    int[] rows = {15, 16, 17, 32};
    long[] cycles = new long[rows.length];
    try (NpuRtl rtl = NpuRtl.start(config, WaveCapture.none().options())) {
      for (int i = 0; i < rows.length; i++) {
        EstimationProgram.Plan plan = DenoiserProgram.plan(p, c, rows[i], 40, 4);
        ProgramCosim.Outcome o = ProgramCosim.run(rtl, DenoiserProgram.image(p, plan, rows[i]), 0);
        assertTrue(o.bitExact(), rows[i] + " rows: first difference at 0x" + Long.toHexString(o.firstDifference()));
        assertTrue(o.statusMatches());
        assertTrue(o.counterMismatches().isEmpty(), "counters " + o.counterMismatches().keySet());
        assertEquals(o.modelCycles(), o.rtlCycles());
        assertEquals(DenoiserProgram.gemmCycles(p, c, rows[i], 40, 4), o.rtlCycles());
        cycles[i] = o.rtlCycles();
      }
    }
    long perRow = cycles[1] - cycles[0];
    long step = cycles[2] - cycles[1];
    assertTrue(step > 3 * perRow, "16 -> 17 rows adds " + step + " cycles, 15 -> 16 " + perRow);
    assertTrue(cycles[3] < cycles[2] + 16 * 2 * perRow, "17 -> 32 rows stays on the second stair");
  }
}
