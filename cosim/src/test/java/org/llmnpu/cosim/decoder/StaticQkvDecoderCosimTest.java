package org.llmnpu.cosim.decoder;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.LoweredModel;
import org.llmnpu.sw.lower.NpuDecoder;
import org.llmnpu.sw.lower.NpuEngine;

/**
 * stories260K int8 at {@code --fusion full} with q, k and v quantized by their calibrated static scales
 * ({@code DecoderLowering#staticQkv}) on the default NPU: an 8-token prefill and a decode step on the RTL in Verilator
 * against the golden ISA simulator — memory, status and every counter equal, RTL cycles = the cycle model's — and
 * fewer DSP instructions than the dynamic (absmax) quantization's program on the golden.
 */
class StaticQkvDecoderCosimTest {
  @Test
  void staticQkvPrefillAndDecodeAreBitExactOnTheRtl() throws Exception {
    NpuConfig config = NpuConfig.defaults();
    int[] prompt = new int[8];
    LoweredModel model = TwoBlocksCosimTest.storiesInt8(config, prompt);
    NpuDecoder dynamic = new NpuDecoder(model, 8, NpuEngine.GOLDEN, Fusion.FULL);
    NpuDecoder.Step dp = dynamic.prefill(prompt, false);
    NpuDecoder.Step dd = dynamic.decode(prompt[3]);
    DecoderRtlSteps.Run rtl = DecoderRtlSteps.prefillAndDecode(config, model, prompt, l -> l.staticQkv(true));
    assertTrue(rtl.prefill().counter(Counter.DSP_INSTRUCTIONS) < dp.counter(Counter.DSP_INSTRUCTIONS));
    assertTrue(rtl.decode().counter(Counter.DSP_INSTRUCTIONS) < dd.counter(Counter.DSP_INSTRUCTIONS));
    System.out.printf("static q/k/v on the RTL: prefill %,d cycles (dynamic %,d), decode %,d (dynamic %,d)%n",
        rtl.prefillCycles(), dp.counter(Counter.CYCLES), rtl.decodeCycles(), dd.counter(Counter.CYCLES));
  }
}
