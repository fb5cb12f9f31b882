package org.llmnpu.cosim.decoder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * stories260K with {@code mxfp8} weights (MX E4M3 blocks decoded by {@code loadmx}) on an NPU built with {@code mxLoad}
 * ({@link FeaturedNpu}, shared with the other feature tests; its other features change at most the program's GEMM tiles
 * and DSP buffer use, not the decoding of MX blocks this test is about) in Verilator against the golden ISA simulator:
 * a 2-token prefill and one full decode step (all layers and the LM head), memory images, status and every counter
 * equal, RTL cycles equal to the cycle model. The decoder's NPU for MX weights without {@code --config}
 * ({@link DecoderRun#defaultNpu}) has {@code mxLoad} too.
 */
class DecoderMxCosimTest {
  @Test
  void anMxfp8DecodeStepIsBitExactOnTheRtl() throws Exception {
    assertTrue(DecoderRun.defaultNpu("mxfp8").mxLoad(), "the decoder's NPU for MX weights");
    DecoderRun.Result r = DecoderRtlSteps.run("mxfp8", new DecoderRun.Options("stories260K", 2, 2, "mxfp8",
        DecoderRun.Engine.RTL, 3), FeaturedNpu.CONFIG, 2);
    assertTrue(r.machine().mxLoad());
    assertEquals("decode", r.steps().get(1).phase());
  }
}
