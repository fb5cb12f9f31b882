package org.llmnpu.cosim.decoder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.verilator.SimModes;

/**
 * stories260K on the generated default NPU in Verilator against the golden ISA simulator: a
 * 4-token prefill program and one full decode step (all five layers and the LM head), memory
 * images, status and every counter equal; also with the weights streamed into the array and the feed-forward's
 * GEMM epilogues on the PPM (the fused datapath's {@code gemm wStream=1} and {@code ppm=1}, built in the RTL), and
 * with the batched attention of {@code --fusion full}; {@code int4-g32} on the group-scaled INT4 stream
 * ({@code gemm wInt4=2}) and {@code s2_4} with its feed-forward epilogue on the PPM (the 2:4 NPU) at {@code full};
 * at {@code full} with a 16-token prompt (the decode step's SoftMax over two DSP rows, merged two heads a run); at
 * {@code full} a decode step completing a line of the transposed K cache.
 */
class DecoderCosimTest {
  @Test
  void prefillAndOneDecodeStepAreBitExactOnTheRtl() throws Exception {
    DecoderRtlSteps.run("", new DecoderRun.Options("stories260K", 4, 2, "int8", DecoderRun.Engine.RTL, 3),
        DecoderRun.defaultNpu("int8"), 2);
  }

  /**
   * The same with every weight streamed into the array ({@code --fusion vertical}: gemm wStream=1) and the
   * feed-forward's W1 (gate) results through the PPM (gemm ppm=1 with the SiLU C-LUT, ppmcfg, pputab), W3's as INT32.
   */
  @Test
  void streamedWeightsAreBitExactOnTheRtl() throws Exception {
    assertBitExactOnTheRtl("vertical");
  }

  /**
   * The same at {@code --fusion full}: the batched attention (one P·V GEMM per KV head over the block's queries) on a
   * 4-token prefill and a decode step.
   */
  @Test
  void batchedAttentionIsBitExactOnTheRtl() throws Exception {
    assertBitExactOnTheRtl("full");
  }

  /**
   * {@code full} with a 16-token prompt: the decode step's scores over 17 slots span two DSP rows, and the heads'
   * SoftMax programs run unrolled and merged two a run.
   */
  @Test
  void mergedTwoRowSoftmaxesAreBitExactOnTheRtl() throws Exception {
    assertFullStepsBitExactOnTheRtl(16, 2);
  }

  /**
   * {@code full} with a 15-token prompt and two decode steps: the prefill's scores {@code Q·Kᵀ} against the K cache
   * held transposed (its first line of 16 slots written in part: 15 slots, an odd count), the decode step at slot 15 completing that line (the 16 slots packed two a staging line from their K
   * rows, {@code KeyPairs}, the line gathered and written).
   */
  @Test
  void transposedKeysAreBitExactOnTheRtl() throws Exception {
    assertFullStepsBitExactOnTheRtl(15, 3);
  }

  /**
   * {@code full} speculative decoding (a 1-layer draft, gamma 2) after a 4-token prompt: each target verification is
   * a block of 3 tokens starting inside the first line of Kᵀ's slots, so it stages the line's earlier slots from their
   * K rows with its own (odd and even counts) and writes the line; every step bit-exact, RTL cycles = model.
   */
  @Test
  void verificationBlocksInsideAKeyLineAreBitExactOnTheRtl() throws Exception {
    DecoderRun.Result r = DecoderRun.run(new DecoderRun.Options("stories260K", 4, 4, "int8", DecoderRun.Engine.RTL, 3,
        1, 2, "full"), SimModes.local());
    DecoderRun.Speculative sp = r.speculative().orElseThrow();
    assertTrue(sp.targetPasses() >= 2, sp.targetPasses() + " verifications");
    DecoderRtlSteps.assertExact("", sp.steps());
    assertTrue(sp.equalsTargetOnly() && sp.equalsGolden());
  }

  /** int8 at {@code full}: a {@code promptLen}-token prefill and {@code maxNew − 1} decode steps, each bit-exact. */
  private static void assertFullStepsBitExactOnTheRtl(int promptLen, int maxNew) throws Exception {
    DecoderRtlSteps.run("", new DecoderRun.Options("stories260K", promptLen, maxNew, "int8", DecoderRun.Engine.RTL, 3,
        0, 0, "full"), DecoderRun.defaultNpu("int8"), maxNew);
  }

  /** {@code int4-g32} at {@code full}: every block weight one group-scaled streamed GEMM a K chunk. */
  @Test
  void groupScaledInt4IsBitExactOnTheRtl() throws Exception {
    assertBitExactOnTheRtl("int4-g32", "full", false);
  }

  /** {@code s2_4} at {@code full}: sparse streamed GEMMs, W1 through the PPM from the 2:4 aligned copy. */
  @Test
  void sparseEpilogueIsBitExactOnTheRtl() throws Exception {
    assertBitExactOnTheRtl("s2_4", "full", true);
  }

  private static void assertBitExactOnTheRtl(String fusion) throws Exception {
    assertBitExactOnTheRtl("int8", fusion, true);
  }

  private static void assertBitExactOnTheRtl(String quant, String fusion, boolean ppm) throws Exception {
    DecoderRun.Result r = DecoderRtlSteps.run("", new DecoderRun.Options("stories260K", 4, 2, quant,
        DecoderRun.Engine.RTL, 3, 0, 0, fusion), DecoderRun.defaultNpu(quant), 2);
    for (DecoderRun.Step s : r.steps()) {
      assertEquals(ppm, s.counter(Counter.PPM_ELEMENTS) > 0, s.phase() + " runs W1 through the PPM");
    }
  }
}
