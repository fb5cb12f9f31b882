package org.llmnpu.soc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.llmnpu.sw.estimate.CycleEstimator;
import org.llmnpu.sw.estimate.ModelShapes;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.io.Llama2cCheckpoint;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Transformer;
import org.llmnpu.sw.sample.SamplerConfig;
import org.llmnpu.sw.spec.DraftFactory;
import org.llmnpu.sw.spec.DraftSpec;
import org.llmnpu.sw.spec.SpeculativeDecoder;
import org.llmnpu.sw.spec.SpeculativeResult;

/**
 * Speculative decoding across backends (seed 003 section E): the draft — the target compressed to INT4 — runs its
 * γ steps on our NPU (the decode program on the cycle model), the verifier — the target at 8.5 bits a weight
 * (llama.cpp Q8_0: 32 INT8 weights and an FP16 scale) — scores the γ + 1 tokens in one step on the CPU or GPU
 * roofline, with a fast synchronization each way. The acceptance rate α is measured by the software stack's
 * {@link SpeculativeDecoder} (greedy) on stories260K with the same draft; a pass yields
 * {@code (1 − α^(γ+1)) / (1 − α)} tokens ({@link SpeculativeResult#expectedTokensPerPass}). Per generated token:
 * time and energy against the target alone on each backend. Draft and verification run one after the other (no
 * overlap of a pass's verification with the next draft).
 */
public final class SpeculativeAcrossBackends {
  /** Draft formats: the target's compressions our NPU executes (the draft's NPU weight format is the same). */
  public static final List<String> DRAFTS = List.of("int4", "int4-g32", "int8");

  /** Bits per weight of the verifier (llama.cpp Q8_0: 34 bytes per 32 weights). */
  static final double VERIFIER_BITS = 8.5;

  private SpeculativeAcrossBackends() {
  }

  /** The acceptance measured on stories260K. */
  public record Acceptance(double alpha, long drafted, long accepted, int targetPasses, String format, String draft,
                           int gamma) {
  }

  /** One setup: time and energy per generated token. */
  public record Row(String setup, double timePerTokenS, double energyPerTokenJ) {
  }

  /** The comparison. */
  public record Result(ModelShapes.Shape shape, SocPreset preset, int promptLen, Acceptance acceptance,
                       List<Row> rows, SocNpu npu) {
  }

  /**
   * Measures the acceptance of draft {@code draft} (a compression of the target: {@code int4}, {@code int4-g32},
   * {@code int8}, {@code int4+2:4}) with {@code gamma} draft tokens over {@code tokens} generated tokens.
   */
  public static Acceptance measure(String draft, int gamma, int tokens) {
    checkDraft(draft);
    if (gamma < 1 || gamma > 16) {
      throw new IllegalArgumentException("--gamma: " + gamma + " is not allowed; allowed: 1..16");
    }
    if (tokens < 1 || tokens > 200) {
      throw new IllegalArgumentException("--measure-tokens: " + tokens + " is not allowed; allowed: 1..200 (stories260K "
          + "has 512 positions)");
    }
    try {
      ModelWeights w = Llama2cCheckpoint.readBundled("stories260K");
      Transformer target = new Transformer(w);
      int[][] calibration = SampledSequences.sample(target, 1, 64, SampledSequences.CALIBRATION_SEED);
      DraftFactory.Draft d = DraftFactory.build(DraftSpec.parse("draft=" + draft + ",gamma=" + gamma), w,
          calibration[0]);
      int[] prompt = SampledSequences.sample(target, 1, 8, SampledSequences.EVALUATION_SEED)[0];
      SpeculativeResult r = new SpeculativeDecoder(target, d.model(), gamma, SamplerConfig.greedy())
          .generate(prompt, tokens);
      return new Acceptance(r.acceptanceRate(), r.drafted(), r.accepted(), r.targetPasses(), draft, d.description(),
          gamma);
    } catch (IOException e) {
      throw new UncheckedIOException("stories260K cannot be read: " + e.getMessage(), e);
    }
  }

  private static void checkDraft(String draft) {
    if (!DRAFTS.contains(draft)) {
      throw new IllegalArgumentException("--draft: '" + draft + "' is not allowed; allowed: " + String.join(", ", DRAFTS));
    }
  }

  /** {@link #run(String, String, int, String, int, int, SocNpu)} on the preset's NPU. */
  public static Result run(String presetName, String model, int promptLen, String draft, int gamma, int tokens) {
    return run(presetName, model, promptLen, draft, gamma, tokens, SocNpu.PRESET);
  }

  /**
   * Checks the options, measures the acceptance of {@code draft}, then compares.
   *
   * @throws IllegalArgumentException naming the option and what it allows
   */
  public static Result run(String presetName, String model, int promptLen, String draft, int gamma, int tokens,
                           SocNpu npu) {
    SocPreset.load(presetName);
    checkDraft(draft);
    CycleEstimator.checkOptions(SocModels.of(model).config(), draft, promptLen);
    return run(presetName, model, promptLen, measure(draft, gamma, tokens), npu);
  }

  /** {@link #run(String, String, int, Acceptance, SocNpu)} on the preset's NPU. */
  public static Result run(String presetName, String model, int promptLen, Acceptance a) {
    return run(presetName, model, promptLen, a, SocNpu.PRESET);
  }

  /**
   * The comparison for {@code model} on {@code preset} at position {@code promptLen}.
   *
   * @throws IllegalArgumentException naming the option and what it allows
   */
  public static Result run(String presetName, String model, int promptLen, Acceptance a, SocNpu npu) {
    SocPreset preset = SocPreset.load(presetName);
    ModelShapes.Shape shape = SocModels.of(model);
    CycleEstimator.checkOptions(shape.config(), "int4", promptLen);
    ModelConfig c = shape.config();
    HostCosts h = preset.host();
    double hostS = (h.submissionUs().value() + h.commandStreamUs().value()) * 1e-6;
    double cpuW = preset.cpu().activeW().value();
    List<Row> rows = new ArrayList<>();
    NpuBackend draftNpu = npu.backend(preset.npuPreset(), a.format(), Fusion.FULL);
    NpuBackend.Program draft = draftNpu.program(shape, OperatorGraph.Stage.DECODE, promptLen);
    double draftS = draft.cycles() / draftNpu.clockHz() + hostS;
    double draftJ = draft.energyJ() + hostS * cpuW;
    NpuBackend targetNpu = npu.backend(preset.npuPreset(), "int8", Fusion.FULL);
    NpuBackend.Program t8 = targetNpu.program(shape, OperatorGraph.Stage.DECODE, promptLen);
    rows.add(new Row("target only, npu (int8)", t8.cycles() / targetNpu.clockHz() + hostS,
        t8.energyJ() + hostS * cpuW));
    double perPass = SpeculativeResult.expectedTokensPerPass(a.alpha(), a.gamma());
    double syncS = 2 * h.pollSyncUs().value() * 1e-6;
    List<RooflineBackend> verifiers = new ArrayList<>();
    verifiers.add(new RooflineBackend(preset.cpu(), VERIFIER_BITS));
    preset.gpu().ifPresent(g -> verifiers.add(new RooflineBackend(g, VERIFIER_BITS)));
    for (RooflineBackend v : verifiers) {
      double[] one = stepCost(v, OperatorGraph.step(c, 1, promptLen), c);
      rows.add(new Row("target only, " + v.name(), one[0], one[1]));
      double[] verify = stepCost(v, OperatorGraph.step(c, a.gamma() + 1, promptLen), c);
      double passS = a.gamma() * draftS + verify[0] + syncS;
      double passJ = a.gamma() * draftJ + verify[1] + syncS * cpuW;
      rows.add(new Row("draft on npu (" + a.format() + "), verifier on " + v.name(), passS / perPass,
          passJ / perPass));
    }
    return new Result(shape, preset, promptLen, a, rows, npu);
  }

  private static double[] stepCost(RooflineBackend b, List<Operator> ops, ModelConfig c) {
    double s = 0;
    double j = 0;
    for (Operator op : ops) {
      OpCost k = b.call(op, c).times(op.calls());
      s += k.callS();
      j += k.energyJ();
    }
    return new double[] {s, j};
  }
}
