package org.llmnpu.cosim.decoder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.LoweredModel;
import org.llmnpu.sw.lower.NpuDecoder;
import org.llmnpu.sw.lower.NpuEngine;
import org.llmnpu.sw.lower.WeightFormats;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.SyntheticWeights;

/**
 * stories260K int8 at {@code --fusion full} with static q/k/v scales and the QKV post tile by tile
 * ({@code LoweredModel#orderQkvByTiles}) on an NPU built with maxN 32 ({@link FeaturedNpu}, shared with the other
 * feature tests), so that the QKV GEMM is four tiles ({@code [q heads 0..3] [q heads 4..7] [k] [v]}), each tile's post
 * for a group of the block's tokens at once ({@code BlockQkvPost}; with the NPU's permutations the tile that completes
 * K also writes Kᵀ by blocks); and a GQA shape (dim 128, hidden 172, 4/2 heads of 32: flat K rows) whose tiles' posts
 * go in groups of as many tokens as the DSP's score rows hold: an 8-token prefill and a decode step each on the RTL in
 * Verilator against the golden ISA simulator — memory, status and every counter equal, RTL cycles = the cycle model's —
 * and the same logits as the per-token post's program on the golden. No NPU build of its own.
 */
class TiledQkvPostCosimTest {

  @Test
  void aGqaShapeInTokenGroupsIsBitExactOnTheRtl() throws Exception {
    ModelWeights w = SyntheticWeights.generate(new ModelConfig(128, 172, 2, 4, 2, 64, 64), 7);
    int[] prompt = {1, 5, 9, 13, 17, 21, 25, 29};
    NpuDecoder perToken = new NpuDecoder(WeightFormats.lower(w, "int8", FeaturedNpu.CONFIG.machine(), 32, 16), 8,
        NpuEngine.GOLDEN, Fusion.FULL);
    perToken.lowering().staticQkv(true);
    NpuDecoder.Step pp = perToken.prefill(prompt, false);
    NpuDecoder.Step pd = perToken.decode(prompt[3]);
    LoweredModel model = WeightFormats.lower(w, "int8", FeaturedNpu.CONFIG.machine(), 32, 16);
    assertNull(model.orderQkvByTiles());
    DecoderRtlSteps.Run rtl = DecoderRtlSteps.prefillAndDecode(FeaturedNpu.CONFIG, model, prompt, l -> l.staticQkv(true));
    assertArrayEquals(pp.logits()[0], rtl.prefill().logits()[0]);
    assertArrayEquals(pd.logits()[0], rtl.decode().logits()[0]);
    System.out.printf("GQA shape, block-wide QKV post in groups on the RTL (feature NPU, maxN 32): prefill %,d cycles"
        + " (per-token post %,d), decode %,d (per-token %,d)%n", rtl.prefillCycles(), pp.counter(Counter.CYCLES),
        rtl.decodeCycles(), pd.counter(Counter.CYCLES));
  }

  @Test
  void tiledQkvPostIsBitExactOnTheRtl() throws Exception {
    NpuConfig config = FeaturedNpu.CONFIG;
    int[] prompt = new int[8];
    LoweredModel perTokenModel = TwoBlocksCosimTest.storiesInt8(config, prompt);
    NpuDecoder perToken = new NpuDecoder(perTokenModel, 8, NpuEngine.GOLDEN, Fusion.FULL);
    perToken.lowering().staticQkv(true);
    NpuDecoder.Step pp = perToken.prefill(prompt, false);
    NpuDecoder.Step pd = perToken.decode(prompt[3]);
    LoweredModel model = TwoBlocksCosimTest.storiesInt8(config, prompt);
    assertNull(model.orderQkvByTiles());
    DecoderRtlSteps.Run rtl = DecoderRtlSteps.prefillAndDecode(config, model, prompt, l -> l.staticQkv(true));
    assertArrayEquals(pp.logits()[0], rtl.prefill().logits()[0]);
    assertArrayEquals(pd.logits()[0], rtl.decode().logits()[0]);
    System.out.printf("tiled QKV post on the RTL (maxN 32): prefill %,d cycles (per-token post %,d), decode %,d"
        + " (per-token %,d)%n", rtl.prefillCycles(), pp.counter(Counter.CYCLES), rtl.decodeCycles(),
        pd.counter(Counter.CYCLES));
  }
}
