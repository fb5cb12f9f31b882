package org.llmnpu.cosim.decoder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.function.Consumer;
import org.llmnpu.cosim.NpuRtl;
import org.llmnpu.isa.Counter;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.sw.lower.DecoderLowering;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.LoweredModel;
import org.llmnpu.sw.lower.NpuDecoder;
import org.llmnpu.verilator.SimModes;

/**
 * The decoder cosim tests' one check of a step on the RTL: a lowered program (a prefill, a decode step, a speculative
 * pass) run on the RTL in Verilator beside the golden ISA simulator is bit-exact — memory image, status and every
 * counter equal ({@link DecoderRun.Step#bitExact}, its first difference in the message) — and its RTL cycles equal the
 * cycle model's ({@link Counter#CYCLES} of the golden). Each test adds what its feature must show (logits against
 * another program, fewer cycles, a counter) on top.
 */
final class DecoderRtlSteps {
  private DecoderRtlSteps() {
  }

  /** A prefill and a decode step run through {@link #prefillAndDecode}: the golden's steps and the RTL's. */
  record Run(NpuDecoder npu, NpuDecoder.Step prefill, NpuDecoder.Step decode, DecoderRun.Step rtlPrefill,
             DecoderRun.Step rtlDecode) {
    long prefillCycles() {
      return rtlPrefill.rtlCycles();
    }

    long decodeCycles() {
      return rtlDecode.rtlCycles();
    }
  }

  /** Asserts every step of {@code steps} bit-exact with RTL cycles = model; {@code what} (or "") leads the messages. */
  static void assertExact(String what, List<DecoderRun.Step> steps) {
    String lead = what.isEmpty() ? "" : what + " ";
    for (DecoderRun.Step s : steps) {
      assertTrue(s.bitExact(), lead + s.phase() + ": " + s.difference());
      assertEquals(s.counter(Counter.CYCLES), s.rtlCycles(), lead + s.phase() + " cycles");
    }
  }

  /**
   * {@link DecoderRun#run} of {@code o} on the RTL of {@code config} ({@link DecoderRun#defaultNpu} for the decoder's
   * NPU): {@code steps} steps, each bit-exact with RTL cycles = model.
   */
  static DecoderRun.Result run(String what, DecoderRun.Options o, NpuConfig config, int steps) throws IOException {
    return checked(what, DecoderRun.run(o, config, SimModes.local()), steps);
  }

  /** As {@link #run(String, DecoderRun.Options, NpuConfig, int)} on the open model {@code rtl}. */
  static DecoderRun.Result run(String what, DecoderRun.Options o, NpuRtl rtl, int steps) throws IOException {
    return checked(what, DecoderRun.run(o, rtl), steps);
  }

  private static DecoderRun.Result checked(String what, DecoderRun.Result r, int steps) {
    assertEquals(steps, r.steps().size(), what + " steps");
    assertExact(what, r.steps());
    return r;
  }

  /**
   * A prefill of {@code prompt} and a decode step (token {@code prompt[3]}) of {@code model} at {@code --fusion full},
   * blocks of 8, the lowering set up by {@code setup} first, on the RTL of {@code config}: each bit-exact with RTL
   * cycles = model.
   */
  static Run prefillAndDecode(NpuConfig config, LoweredModel model, int[] prompt, Consumer<DecoderLowering> setup)
      throws Exception {
    try (DecoderRtl rtl = DecoderRtl.start(config, SimModes.local())) {
      StepRecorder recorder = new StepRecorder(rtl, config.engineTiming(), model, false);
      NpuDecoder npu = new NpuDecoder(model, 8, recorder, Fusion.FULL);
      setup.accept(npu.lowering());
      NpuDecoder.Step p = npu.prefill(prompt, false);
      DecoderRun.Step prefill = recorder.step(p.phase(), p, false);
      NpuDecoder.Step d = npu.decode(prompt[3]);
      DecoderRun.Step decode = recorder.step(d.phase(), d, false);
      assertExact("", List.of(prefill, decode));
      return new Run(npu, p, d, prefill, decode);
    }
  }

  /** A prefill of {@code prompt} alone, as {@link #prefillAndDecode}; the RTL's step. */
  static DecoderRun.Step prefill(NpuConfig config, LoweredModel model, int[] prompt) throws Exception {
    try (DecoderRtl rtl = DecoderRtl.start(config, SimModes.local())) {
      StepRecorder recorder = new StepRecorder(rtl, config.engineTiming(), model, false);
      NpuDecoder npu = new NpuDecoder(model, 8, recorder, Fusion.FULL);
      NpuDecoder.Step p = npu.prefill(prompt, false);
      DecoderRun.Step prefill = recorder.step(p.phase(), p, false);
      assertExact("", List.of(prefill));
      return prefill;
    }
  }
}
