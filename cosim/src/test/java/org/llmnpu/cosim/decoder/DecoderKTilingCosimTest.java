package org.llmnpu.cosim.decoder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * stories260K on an NPU whose GEMM engine takes K ≤ 48 (the default NPU otherwise): every block
 * GEMM (K 64, 128, 172) and the LM head run as K chunks whose partials the DSP sums. A 3-token
 * prefill and one decode step on the RTL in Verilator: memory, status and every counter equal
 * to the golden ISA simulator, RTL cycles equal the cycle model's.
 */
class DecoderKTilingCosimTest {
  /** The default NPU with maxK 48. */
  static NpuConfig maxK48() {
    return new NpuConfig(16, 256, 4, 16, 16, 32, 0, 64, 48, 128, 32, 16, 4096);
  }

  @Test
  void kTiledDecoderIsBitExactAndCycleExactOnTheRtl() throws Exception {
    DecoderRun.Result r = DecoderRun.run(new DecoderRun.Options("stories260K", 3, 2, "int8", DecoderRun.Engine.RTL, 3),
        maxK48(), SimModes.local());
    assertEquals(2, r.steps().size());
    for (DecoderRun.Step s : r.steps()) {
      assertTrue(s.bitExact(), s.phase() + ": " + s.difference());
      assertEquals(s.counter(Counter.CYCLES), s.rtlCycles(), s.phase() + " cycles");
    }
  }
}
