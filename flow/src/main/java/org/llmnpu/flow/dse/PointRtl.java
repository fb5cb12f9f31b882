package org.llmnpu.flow.dse;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import org.llmnpu.cosim.decoder.DecoderRun;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimOptions;

/**
 * A sweep point's cycles measured on its own RTL ({@code evaluation: rtl}): the lowered decoder of the model
 * ({@link DecoderRun}, engine RTL) prefills the point's prompt and takes one decode step at position
 * {@code promptLen} on the point's NPU generated and run in Verilator, every step checked against the golden ISA
 * simulator (memory image, status, every counter). A step that is not bit-exact, or whose RTL cycles differ from the
 * cycle model's, fails the point with the first difference — the cycles are then not trusted.
 *
 * @param prefillCycles RTL cycles of the prefill (every chunk's program)
 * @param decodeCycles  RTL cycles of the first decode step
 * @param steps         the steps that ran (prefill chunks and the decode step)
 * @param fusion        the fusion the lowering applied
 */
record PointRtl(long prefillCycles, long decodeCycles, int steps, String fusion) {
  /** Runs the point; a difference against the golden model is an {@link IllegalStateException} naming it. */
  static PointRtl run(String model, NpuConfig npu, int promptLen, String quant, String fusion) throws IOException {
    // two new tokens: the prefill gives the first, one decode step at position promptLen the second
    DecoderRun.Options o = new DecoderRun.Options(model, promptLen, 2, quant, DecoderRun.Engine.RTL, 1, 0, 0, fusion);
    DecoderRun.Result r = DecoderRun.run(o, npu, SimOptions.fromEnvironment());
    if (!r.bitExact()) {
      throw new IllegalStateException("evaluation rtl: the RTL differs from the golden ISA simulator: "
          + r.firstDifference().orElse("(no difference named)"));
    }
    List<DecoderRun.Step> decode = r.steps().stream().filter(s -> s.phase().equals("decode")).toList();
    if (decode.isEmpty()) {
      throw new IllegalStateException("evaluation rtl: the decoder ran no decode step (prompt " + promptLen + ")");
    }
    long prefill = r.rtlCycles("prefill");
    long modelPrefill = r.total("prefill", org.llmnpu.isa.Counter.CYCLES);
    long dec = decode.get(0).rtlCycles();
    long modelDec = decode.get(0).counter(org.llmnpu.isa.Counter.CYCLES);
    if (prefill != modelPrefill || dec != modelDec) {
      throw new IllegalStateException(String.format(Locale.ROOT, "evaluation rtl: RTL cycles differ from the cycle "
          + "model's: prefill %d vs %d, decode %d vs %d", prefill, modelPrefill, dec, modelDec));
    }
    return new PointRtl(prefill, dec, r.steps().size(), String.valueOf(r.fusion().applied()));
  }

  String describe() {
    return "the lowered decoder's " + steps + " programs bit-exact against the golden ISA simulator, RTL cycles = cycle "
        + "model";
  }
}
