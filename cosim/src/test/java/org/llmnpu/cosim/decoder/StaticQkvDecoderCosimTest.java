package org.llmnpu.cosim.decoder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.LoweredModel;
import org.llmnpu.sw.lower.NpuDecoder;
import org.llmnpu.sw.lower.NpuEngine;
import org.llmnpu.verilator.SimModes;

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
    RtlSteps rtl = staticQkvOnTheRtl(config, model, prompt);
    assertTrue(rtl.prefill().counter(Counter.DSP_INSTRUCTIONS) < dp.counter(Counter.DSP_INSTRUCTIONS));
    assertTrue(rtl.decode().counter(Counter.DSP_INSTRUCTIONS) < dd.counter(Counter.DSP_INSTRUCTIONS));
    System.out.printf("static q/k/v on the RTL: prefill %,d cycles (dynamic %,d), decode %,d (dynamic %,d)%n",
        rtl.prefillCycles(), dp.counter(Counter.CYCLES), rtl.decodeCycles(), dd.counter(Counter.CYCLES));
  }

  /** The golden steps of {@link #staticQkvOnTheRtl} and the RTL's cycles. */
  record RtlSteps(NpuDecoder.Step prefill, NpuDecoder.Step decode, long prefillCycles, long decodeCycles) {
  }

  /**
   * A prefill of {@code prompt} and a decode step (token {@code prompt[3]}) of {@code model} at {@code --fusion full}
   * with static q/k/v scales, blocks of 8, on the RTL of {@code config} in Verilator: each bit-exact against the golden
   * (memory, status, every counter) with RTL cycles = the cycle model's.
   */
  static RtlSteps staticQkvOnTheRtl(NpuConfig config, LoweredModel model, int[] prompt) throws Exception {
    return onTheRtl(config, model, prompt, true);
  }

  /** As {@link #staticQkvOnTheRtl}, with static ({@code staticQkv}) or dynamic q/k/v scales. */
  static RtlSteps onTheRtl(NpuConfig config, LoweredModel model, int[] prompt, boolean staticQkv) throws Exception {
    try (DecoderRtl rtl = DecoderRtl.start(config, SimModes.local())) {
      StepRecorder recorder = new StepRecorder(rtl, config.engineTiming(), model, false);
      NpuDecoder npu = new NpuDecoder(model, 8, recorder, Fusion.FULL);
      npu.lowering().staticQkv(staticQkv);
      NpuDecoder.Step p = npu.prefill(prompt, false);
      DecoderRun.Step prefill = recorder.step(p.phase(), p, false);
      NpuDecoder.Step d = npu.decode(prompt[3]);
      DecoderRun.Step decode = recorder.step(d.phase(), d, false);
      for (DecoderRun.Step s : new DecoderRun.Step[] {prefill, decode}) {
        assertTrue(s.bitExact(), s.phase() + ": " + s.difference());
        assertEquals(s.counter(Counter.CYCLES), s.rtlCycles(), s.phase() + " cycles");
      }
      return new RtlSteps(p, d, prefill.rtlCycles(), decode.rtlCycles());
    }
  }
}
