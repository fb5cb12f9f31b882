package org.llmnpu.cosim.decoder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.lower.DecoderLowering;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.LoweredModel;
import org.llmnpu.sw.lower.NpuDecoder;
import org.llmnpu.sw.lower.NpuEngine;
import org.llmnpu.sw.lower.PrefillOrder;
import org.llmnpu.sw.lower.WeightFormats;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.verilator.SimModes;

/**
 * Two token blocks in flight on the RTL: stories260K int8 at {@code --fusion full} on an NPU built with a 1024-row DSP
 * buffer, where both blocks' buffers fit ({@link FeaturedNpu}, shared with the other feature tests, whose gate,
 * permutations and maxN 32 the sequential program below uses as well), a 16-token prefill as one program of two blocks
 * of 8 whose commands the interleaver reorders (the second block's parameterized DSP programs reloaded by {@code dspld}
 * and run resident beside the first block's W streams) and one decode step: memory, status and every counter equal to
 * the golden, RTL cycles = model, and the logits those of the sequential program bit for bit; layer by layer, skewed
 * ({@code DecoderLowering#skewed}: both blocks' QKV GEMMs first) and skewed in windows across layers
 * ({@code DecoderLowering#acrossLayers}: the program memory's placements kept from layer to layer).
 */
class TwoBlocksCosimTest {
  /** stories260K int8 lowered for {@code config}'s machine and a context of the prompt + 2; fills {@code prompt}. */
  static LoweredModel storiesInt8(NpuConfig config, int[] prompt) throws Exception {
    ModelWeights w = WeightFormats.prepare(ModelCatalog.load("stories260K", Optional.empty(), 1), "int8");
    prompt[0] = 1;
    for (int i = 1; i < prompt.length; i++) {
      prompt[i] = 2 + (i * 37) % (w.config().vocabSize() - 2);
    }
    return new LoweredModel(w, config.machine(), prompt.length + 2, prompt.length, 8, 0, Command.DENSE);
  }

  @ParameterizedTest
  @CsvSource({"false, false", "true, false", "true, true"})
  void twoBlocksInFlightAreBitExactOnTheRtl(boolean skewed, boolean acrossLayers) throws Exception {
    onTheRtl(String.format("two blocks in flight%s%s", skewed ? " skewed" : "", acrossLayers ? " across layers" : ""),
        lowering -> lowering.interleave(true).twoBlocks(true).skewed(skewed).acrossLayers(acrossLayers));
  }

  /**
   * The woven order ({@link PrefillOrder.Weave#GATED}, {@link FeaturedNpu}'s PPM gate and kept X making the feed-forward
   * gated and woven): two blocks of 8 staggered by half a layer, each block's gated W1/W3 and W2 tiles woven into the
   * other block's attention, its RMSNorm pairs and W2 residuals pinned, its K/V row stores held in pieces and put beside
   * the other block's QKV GEMM ({@code BlockKvStores}, {@code StreamSchedule#storeAtStreamEnd}), and a decode step that
   * reads the cache those stores wrote; layer by layer and in windows across layers.
   */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void theWovenGatedOrderIsBitExactOnTheRtl(boolean acrossLayers) throws Exception {
    onTheRtl("woven GATED" + (acrossLayers ? " across layers" : ""),
        lowering -> lowering.order(new PrefillOrder(true, true, false, true, acrossLayers, PrefillOrder.Weave.GATED)));
  }

  /**
   * The 16-token prefill and a decode step lowered with {@code order} applied, on the RTL: bit-exact, RTL cycles =
   * model, two blocks in flight, and the logits and MACs of the one-block-at-a-time program.
   */
  private static void onTheRtl(String name, Consumer<DecoderLowering> order) throws Exception {
    NpuConfig config = FeaturedNpu.CONFIG;
    int[] prompt = new int[16];
    LoweredModel model = storiesInt8(config, prompt);
    NpuDecoder sequential = new NpuDecoder(model, 8, NpuEngine.GOLDEN, Fusion.FULL);
    NpuDecoder.Step sp = sequential.prefill(prompt, false);
    NpuDecoder.Step sd = sequential.decode(prompt[3]);
    try (DecoderRtl rtl = DecoderRtl.start(config, SimModes.local())) {
      StepRecorder recorder = new StepRecorder(rtl, config.engineTiming(), model, false);
      NpuDecoder npu = new NpuDecoder(model, 8, recorder, Fusion.FULL);
      order.accept(npu.lowering());
      assertTrue(npu.lowering().twoBlocksInFlight(), npu.lowering().twoBlocksWhyNot());
      NpuDecoder.Step p = npu.prefill(prompt, false);
      DecoderRun.Step prefill = recorder.step(p.phase(), p, false);
      NpuDecoder.Step d = npu.decode(prompt[3]);
      DecoderRun.Step decode = recorder.step(d.phase(), d, false);
      assertTrue(npu.lowering().interleavedCommands() >= 0);
      for (DecoderRun.Step s : new DecoderRun.Step[] {prefill, decode}) {
        assertTrue(s.bitExact(), s.phase() + ": " + s.difference());
        assertEquals(s.counter(Counter.CYCLES), s.rtlCycles(), s.phase() + " cycles");
      }
      assertArrayEquals(sp.logits()[0], p.logits()[0], "prefill logits");
      assertArrayEquals(sd.logits()[0], d.logits()[0], "decode logits");
      assertEquals(sp.counter(Counter.MACS), p.counter(Counter.MACS));
      System.out.printf("%s on the RTL: prefill %,d cycles (sequential %,d), decode %,d%n", name, prefill.rtlCycles(),
          sp.counter(Counter.CYCLES), decode.rtlCycles());
    }
  }
}
