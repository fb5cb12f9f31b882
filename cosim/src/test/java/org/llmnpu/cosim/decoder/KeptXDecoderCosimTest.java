package org.llmnpu.cosim.decoder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.LoweredModel;
import org.llmnpu.sw.lower.NpuDecoder;
import org.llmnpu.sw.lower.NpuEngine;

/**
 * stories260K's decoder with the X kept across N tiles on the RTL ({@link FeaturedNpu}, built with {@code xKeep}): the
 * lowering emits every N tile after the first of one X as {@code gemm xKeep=1} (maxN 32: the QKV, O, W2, W1/W3 and LM
 * head GEMMs in several tiles); an 8-token int8 prefill at {@code --fusion full} and one decode step are bit-exact with
 * the golden (memory, status, every counter) with RTL cycles = model, their logits are those of the same NPU copying X
 * every time bit for bit, and they read fewer scratchpad lines (the X copies they skip).
 */
class KeptXDecoderCosimTest {
  @Test
  void storiesPrefillAndDecodeStepKeepXBitExactWithModelCycles() throws Exception {
    NpuConfig config = FeaturedNpu.CONFIG;
    assertTrue(config.xKeep());
    int[] prompt = new int[8];
    LoweredModel model = TwoBlocksCosimTest.storiesInt8(config, prompt);
    NpuConfig copying = config.toBuilder().xKeep(false).build();
    NpuDecoder golden = new NpuDecoder(TwoBlocksCosimTest.storiesInt8(copying, new int[8]), 8, NpuEngine.GOLDEN,
        Fusion.FULL);
    NpuDecoder.Step cp = golden.prefill(prompt, false);
    NpuDecoder.Step cd = golden.decode(prompt[3]);
    DecoderRtlSteps.Run rtl = DecoderRtlSteps.prefillAndDecode(config, model, prompt, l -> l.staticQkv(false));
    NpuDecoder.Step p = rtl.prefill();
    NpuDecoder.Step d = rtl.decode();
    assertArrayEquals(cp.logits()[0], p.logits()[0], "prefill logits");
    assertArrayEquals(cd.logits()[0], d.logits()[0], "decode logits");
    assertEquals(cp.counter(Counter.MACS), p.counter(Counter.MACS));
    assertTrue(p.counter(Counter.SPAD_READS) < cp.counter(Counter.SPAD_READS), "prefill: X copies skipped");
    assertTrue(d.counter(Counter.SPAD_READS) < cd.counter(Counter.SPAD_READS), "decode: X copies skipped");
    System.out.printf("stories260K int8 full on the RTL with xKeep: prefill %,d cycles (copying X %,d), %,d scratchpad "
        + "reads (%,d); decode %,d cycles (%,d), %,d reads (%,d)%n", rtl.prefillCycles(), cp.counter(Counter.CYCLES),
        p.counter(Counter.SPAD_READS), cp.counter(Counter.SPAD_READS), rtl.decodeCycles(), cd.counter(Counter.CYCLES),
        d.counter(Counter.SPAD_READS), cd.counter(Counter.SPAD_READS));
  }
}
