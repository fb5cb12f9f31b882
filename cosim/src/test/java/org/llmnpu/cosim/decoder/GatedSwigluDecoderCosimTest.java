package org.llmnpu.cosim.decoder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * stories260K at {@code --fusion full} on an NPU built with {@code ppmGate} ({@link FeaturedNpu}, shared with the other
 * feature tests): the feed-forward's SwiGLU gate through the PPM ({@code gemm ppm=1 gate=1} onto W1's SiLU codes, no
 * DSP SwiGLU), a 4-token prefill and a decode step on the RTL in Verilator against the golden ISA simulator: memory,
 * status and every counter equal, RTL cycles = the cycle model's. The gated lowering runs twice the PPM elements of the
 * ungated one on the same NPU without the gate (W3's results go through the PPM too), so the gate is in use; the NPU's
 * other features (Kᵀ by permutations, maxN 32, 1024 DSP rows, the MX decoder) are the same on both sides of that
 * comparison.
 */
class GatedSwigluDecoderCosimTest {
  @Test
  void gatedFeedForwardPrefillAndDecodeAreBitExactOnTheRtl() throws Exception {
    NpuConfig gated = FeaturedNpu.CONFIG;
    DecoderRun.Result r = DecoderRtlSteps.run("gated", new DecoderRun.Options("stories260K", 4, 2, "int8",
        DecoderRun.Engine.RTL, 3, 0, 0, "full"), gated, 2);
    DecoderRun.Result ungated = DecoderRun.run(new DecoderRun.Options("stories260K", 4, 2, "int8",
        DecoderRun.Engine.GOLDEN, 3, 0, 0, "full"), gated.toBuilder().ppmGate(false).build(), SimModes.local());
    for (int i = 0; i < r.steps().size(); i++) {
      DecoderRun.Step s = r.steps().get(i);
      long plain = ungated.steps().get(i).counter(Counter.PPM_ELEMENTS);
      assertTrue(plain > 0, s.phase());
      assertEquals(2 * plain, s.counter(Counter.PPM_ELEMENTS), s.phase() + ": W1 and W3 through the PPM");
      System.out.printf("gated %s: %d RTL cycles (ungated golden %d), PPM elements %d%n", s.phase(), s.rtlCycles(),
          ungated.steps().get(i).counter(Counter.CYCLES), s.counter(Counter.PPM_ELEMENTS));
    }
  }
}
