package org.llmnpu.cosim.decoder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.llmnpu.isa.Counter;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.LoweredModel;
import org.llmnpu.sw.lower.NpuDecoder;
import org.llmnpu.sw.lower.NpuEngine;
import org.llmnpu.sw.lower.PrefillOrder;
import org.llmnpu.verilator.SimModes;

/**
 * The woven order on the RTL ({@link PrefillOrder.Weave#GATED}): stories260K int8 at {@code --fusion full} on
 * {@link FeaturedNpu} (its PPM gate and kept X make the feed-forward gated and woven), a 16-token prefill as one program
 * of two blocks of 8 staggered by half a layer, each block's gated W1/W3 and W2 tiles woven into the other block's
 * attention, its RMSNorm pairs and W2 residuals pinned, its K/V row stores held in pieces and put beside the other
 * block's QKV GEMM ({@code BlockKvStores}, {@code StreamSchedule#storeAtStreamEnd}), and one decode step that reads the
 * cache those stores wrote: memory, status and every counter equal to the golden, RTL cycles = model, and the logits
 * those of the one-block-at-a-time program bit for bit; layer by layer and in windows across layers.
 */
class WovenGatedCosimTest {
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void theWovenOrderIsBitExactOnTheRtl(boolean acrossLayers) throws Exception {
    NpuConfig config = FeaturedNpu.CONFIG;
    int[] prompt = new int[16];
    LoweredModel model = TwoBlocksCosimTest.storiesInt8(config, prompt);
    NpuDecoder sequential = new NpuDecoder(model, 8, NpuEngine.GOLDEN, Fusion.FULL);
    NpuDecoder.Step sp = sequential.prefill(prompt, false);
    NpuDecoder.Step sd = sequential.decode(prompt[3]);
    try (DecoderRtl rtl = DecoderRtl.start(config, SimModes.local())) {
      StepRecorder recorder = new StepRecorder(rtl, config.engineTiming(), model, false);
      NpuDecoder npu = new NpuDecoder(model, 8, recorder, Fusion.FULL);
      npu.lowering().order(new PrefillOrder(true, true, false, true, acrossLayers, PrefillOrder.Weave.GATED));
      assertTrue(npu.lowering().twoBlocksInFlight(), npu.lowering().twoBlocksWhyNot());
      NpuDecoder.Step p = npu.prefill(prompt, false);
      DecoderRun.Step prefill = recorder.step(p.phase(), p, false);
      NpuDecoder.Step d = npu.decode(prompt[3]);
      DecoderRun.Step decode = recorder.step(d.phase(), d, false);
      for (DecoderRun.Step s : new DecoderRun.Step[] {prefill, decode}) {
        assertTrue(s.bitExact(), s.phase() + ": " + s.difference());
        assertEquals(s.counter(Counter.CYCLES), s.rtlCycles(), s.phase() + " cycles");
      }
      assertArrayEquals(sp.logits()[0], p.logits()[0], "prefill logits");
      assertArrayEquals(sd.logits()[0], d.logits()[0], "decode logits");
      System.out.printf("woven GATED%s on the RTL: prefill %,d cycles (one block at a time %,d), decode %,d%n",
          acrossLayers ? " across layers" : "", prefill.rtlCycles(), sp.counter(Counter.CYCLES), decode.rtlCycles());
    }
  }
}
