package org.llmnpu.cosim.decoder;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.EngineTiming;
import org.llmnpu.sw.lower.DecoderLowering;
import org.llmnpu.sw.lower.LoweredModel;
import org.llmnpu.sw.lower.NpuDecoder;
import org.llmnpu.sw.lower.NpuSpeculativeDecoder;
import org.llmnpu.sw.lower.WeightFormats;
import org.llmnpu.sw.model.ModelWeights;

/**
 * Greedy speculative decoding ({@link NpuSpeculativeDecoder}: a draft of the target's first layers
 * proposes γ tokens with γ decode programs, the target verifies them in one program of γ + 1
 * tokens) on the golden ISA simulator and, with an RTL model, on the RTL in Verilator: every draft
 * and target program of the RTL session also runs on the golden from the same image and is compared
 * (memory, status, every counter), and the RTL session continues on the RTL's own images, so its
 * tokens are the RTL's. A separate golden-only session gives the golden tokens; both must equal the
 * target-only greedy tokens of the plain run on the same NPU.
 */
final class SpeculativeRun {
  private SpeculativeRun() {
  }

  /**
   * Runs speculative decoding of {@code maxNew} tokens after {@code prompt}.
   *
   * @param target      the target as lowered for the plain run (same NPU, same layout)
   * @param stepTokens  tokens per step {@code target} was lowered for (at least γ + 1)
   * @param prepared    the target's weights prepared for the weight format (the draft's are its first layers)
   * @param rtl         the RTL model (native or AXI), or null for the golden only
   * @param plainTokens target-only greedy tokens of the plain run
   * @param plainSteps  the plain run's steps (its decode cycles are the reference)
   */
  static DecoderRun.Speculative run(DecoderRun.Options o, ModelWeights prepared, LoweredModel target, int stepTokens,
                                    EngineTiming timing, DecoderRtl rtl, int[] prompt, int[] plainTokens,
                                    List<DecoderRun.Step> plainSteps) {
    LoweredModel draft = new LoweredModel(NpuSpeculativeDecoder.truncate(prepared, o.draftLayers()), target.machine(),
        target.maxContext(), stepTokens, WeightFormats.bits(o.quant()), WeightFormats.group(o.quant()),
        WeightFormats.sparsity(o.quant()), WeightFormats.mx(o.quant()));
    int block = DecoderLowering.largestBlock(target, 16);
    Session golden = Session.run(null, timing, target, draft, block, prompt, o);
    Session onRtl = rtl == null ? null : Session.run(rtl, timing, target, draft, block, prompt, o);
    Session s = onRtl == null ? golden : onRtl;
    List<DecoderRun.Step> plainDecode = plainSteps.stream().filter(x -> x.phase().equals("decode")).toList();
    int perToken = Math.max(1, plainDecode.size());
    double plainModel = plainDecode.stream().mapToLong(x -> x.counter(Counter.CYCLES)).sum() / (double) perToken;
    double plainRtl = rtl == null ? Double.NaN
        : plainDecode.stream().mapToLong(DecoderRun.Step::rtlCycles).sum() / (double) perToken;
    NpuSpeculativeDecoder.Result r = s.result;
    return new DecoderRun.Speculative(o.draftLayers(), o.gamma(), r.tokens(), golden.result.tokens(),
        Arrays.equals(r.tokens(), plainTokens), r.targetPasses(), r.draftSteps(), r.drafted(), r.accepted(), s.steps,
        plainModel, plainRtl);
  }

  /** One speculative session on an engine. */
  private record Session(NpuSpeculativeDecoder.Result result, List<DecoderRun.Step> steps) {
    static Session run(DecoderRtl rtl, EngineTiming timing, LoweredModel target, LoweredModel draft, int block,
                       int[] prompt, DecoderRun.Options o) {
      StepRecorder t = new StepRecorder(rtl, timing, target, true);
      StepRecorder d = new StepRecorder(rtl, timing, draft, true);
      List<DecoderRun.Step> steps = new ArrayList<>();
      // the plain run's fusion level for both, so the accepted tokens are comparable with its tokens
      org.llmnpu.sw.lower.Fusion fusion = org.llmnpu.sw.lower.Fusion.parse(o.fusion());
      NpuSpeculativeDecoder.Result r = NpuSpeculativeDecoder.generate(new NpuDecoder(target, block, t, fusion),
          new NpuDecoder(draft, block, d, fusion), prompt, o.maxNew(), o.gamma(),
          (isTarget, step) -> steps.add(isTarget ? t.step("target " + step.phase(), step, true)
              : d.step("draft " + step.phase(), step, true)));
      return new Session(r, List.copyOf(steps));
    }
  }
}
