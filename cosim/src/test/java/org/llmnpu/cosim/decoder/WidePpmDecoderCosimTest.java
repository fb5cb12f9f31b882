package org.llmnpu.cosim.decoder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * stories260K at {@code --fusion full} on {@link FeaturedNpu} with the wide PPM ({@code ppmWide}: a fused GEMM drains
 * one N tile of a row a cycle): the gated feed-forward's W1/W3 GEMMs ({@code gemm ppm=1 gate=1}) and the other fused
 * epilogues, a 4-token prefill and a decode step on the RTL in Verilator against the golden ISA simulator: memory,
 * status and every counter equal, RTL cycles = the cycle model's. Against the golden run of the same NPU with the
 * narrow PPM: the same tokens and PPM elements, fewer scratchpad writes (one code line a drain cycle) and fewer cycles.
 */
class WidePpmDecoderCosimTest {
  @Test
  void widePpmPrefillAndDecodeAreBitExactOnTheRtlAndShorter() throws Exception {
    NpuConfig wide = FeaturedNpu.CONFIG.toBuilder().ppmWide(true).build();
    DecoderRun.Result r = DecoderRtlSteps.run("wide PPM", new DecoderRun.Options("stories260K", 4, 2, "int8",
        DecoderRun.Engine.RTL, 3, 0, 0, "full"), wide, 2);
    DecoderRun.Result narrow = DecoderRun.run(new DecoderRun.Options("stories260K", 4, 2, "int8",
        DecoderRun.Engine.GOLDEN, 3, 0, 0, "full"), FeaturedNpu.CONFIG, SimModes.local());
    assertArrayEquals(narrow.tokens(), r.tokens(), "the same tokens");
    for (int i = 0; i < r.steps().size(); i++) {
      DecoderRun.Step s = r.steps().get(i);
      DecoderRun.Step n = narrow.steps().get(i);
      assertTrue(s.counter(Counter.PPM_ELEMENTS) > 0, s.phase());
      assertEquals(n.counter(Counter.PPM_ELEMENTS), s.counter(Counter.PPM_ELEMENTS), s.phase());
      assertEquals(n.counter(Counter.MACS), s.counter(Counter.MACS), s.phase());
      assertTrue(s.counter(Counter.SPAD_WRITES) < n.counter(Counter.SPAD_WRITES), s.phase());
      assertTrue(s.rtlCycles() < n.counter(Counter.CYCLES), s.phase());
      System.out.printf("wide PPM %s: %d RTL cycles (narrow PPM golden %d), spad writes %d (%d)%n", s.phase(),
          s.rtlCycles(), n.counter(Counter.CYCLES), s.counter(Counter.SPAD_WRITES), n.counter(Counter.SPAD_WRITES));
    }
  }
}
