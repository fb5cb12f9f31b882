package org.llmnpu.soc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.llmnpu.sw.estimate.CycleEstimator;
import org.llmnpu.sw.estimate.ModelShapes;
import org.llmnpu.sw.lower.Fusion;

/**
 * The stage-level analysis of seed 001 on our SoC model: per stage (prefill, decode) and backend choice
 * ({@link StageCosting#CHOICES}) the time, energy, call-to-op ratio, communication and dynamic-quantization shares
 * and fallback operators; the per-stage choice (the faster backend per stage); the end-to-end run (prefill and
 * {@code genTokens} decode steps, each costed as the step at the prompt's end); and the findings of seed 001 set
 * next to ours ({@link StageFindings}).
 */
public final class StageAnalysis {
  /** Allowed {@code --npu} values: our NPU runs every operator, or lacks what the paper's NPU backend lacks. */
  public static final List<String> NPU_OPS = List.of("ours", "paper");

  private StageAnalysis() {
  }

  /**
   * What to analyze.
   *
   * @param preset         {@link SocPreset#NAMES}
   * @param model          {@link SocModels#names()} or a config.json directory
   * @param promptLen      prompt tokens
   * @param genTokens      decode steps of the end-to-end run
   * @param quant          the NPU's block weight format
   * @param fusion         the NPU lowering's fusion level
   * @param npuOps         {@code ours} or {@code paper}
   * @param sharedBuffer   tensors crossing backends through shared buffers (no copy)
   * @param hostOverhead   false: no submission, dispatch, command-stream or sync cost
   * @param backends       the backends present ({@code cpu}, {@code gpu}, {@code npu})
   * @param npu            the NPU: the preset's, or with {@code --config} and {@code -p} over it
   */
  public record Options(String preset, String model, int promptLen, int genTokens, String quant, String fusion,
                        String npuOps, boolean sharedBuffer, boolean hostOverhead, List<String> backends, SocNpu npu) {
    public Options {
      backends = List.copyOf(backends);
      java.util.Objects.requireNonNull(npu, "npu");
    }

    /** On the preset's NPU ({@link SocNpu#PRESET}). */
    public Options(String preset, String model, int promptLen, int genTokens, String quant, String fusion,
                   String npuOps, boolean sharedBuffer, boolean hostOverhead, List<String> backends) {
      this(preset, model, promptLen, genTokens, quant, fusion, npuOps, sharedBuffer, hostOverhead, backends,
          SocNpu.PRESET);
    }
  }

  /** One stage on one backend choice. */
  public record StageRow(String stage, String backend, double timeS, double energyJ, double opS, double callToOpRatio,
                         double commShare, double quantShare, List<String> fallbackOps) {
  }

  /** One operator of a stage on a backend choice, over all its calls. */
  public record OpRow(String stage, String backend, String op, String kind, boolean light, int calls, double opS,
                      double callS, double commS, double energyJ, String ranOn) {
  }

  /** The analysis. */
  public record Result(Options options, SocPreset preset, ModelShapes.Shape shape, List<StageRow> stages,
                       List<OpRow> operators, List<StageFindings.Finding> findings, List<String> notes,
                       Map<String, NpuBackend.Program> programs) {
  }

  /**
   * Runs the analysis.
   *
   * @throws IllegalArgumentException naming the option and what it allows
   */
  public static Result run(Options o) {
    if (!NPU_OPS.contains(o.npuOps())) {
      throw new IllegalArgumentException("--npu: '" + o.npuOps() + "' is not allowed; allowed: "
          + String.join(", ", NPU_OPS));
    }
    for (String b : o.backends()) {
      if (!List.of("cpu", "gpu", "npu").contains(b)) {
        throw new IllegalArgumentException("--backends: '" + b + "' is not allowed; allowed: cpu, gpu, npu");
      }
    }
    if (o.genTokens() < 1) {
      throw new IllegalArgumentException("--gen-tokens: " + o.genTokens() + " is not allowed; allowed: >= 1");
    }
    SocPreset preset = SocPreset.load(o.preset());
    if (!o.hostOverhead()) {
      preset = preset.withoutHostOverhead();
    }
    ModelShapes.Shape shape = SocModels.of(o.model());
    CycleEstimator.checkOptions(shape.config(), o.quant(), o.promptLen());
    if (o.promptLen() + o.genTokens() >= shape.config().maxSeqLen()) {
      throw new IllegalArgumentException("--gen-tokens: " + o.genTokens() + " is not allowed with --prompt-len "
          + o.promptLen() + "; allowed: prompt + generated < " + shape.config().maxSeqLen());
    }
    NpuBackend npu = o.npu().backend(preset.npuPreset(), o.quant(), Fusion.parse(o.fusion()));
    List<Operator.Kind> lacks = o.npuOps().equals("paper") ? preset.paperNpuLacks() : List.of();
    StageCosting costing = new StageCosting(preset, o.backends().contains("cpu"), o.backends().contains("gpu"), npu,
        o.sharedBuffer(), o.backends().contains("npu") ? lacks : List.of());
    List<StageRow> stages = new ArrayList<>();
    List<OpRow> operators = new ArrayList<>();
    Map<String, Map<String, StageRow>> byStage = new LinkedHashMap<>();
    Map<String, NpuBackend.Program> programs = new LinkedHashMap<>();
    for (OperatorGraph.Stage stage : OperatorGraph.Stage.values()) {
      NpuBackend.Program program = o.backends().contains("npu") ? npu.program(shape, stage, o.promptLen()) : null;
      if (program != null) {
        programs.put(stage.key(), program);
      }
      Map<String, StageRow> rows = new LinkedHashMap<>();
      for (String choice : StageCosting.CHOICES) {
        if (choice.startsWith("npu") && program == null) {
          continue;
        }
        Optional<List<StageCosting.Costed>> costed = costing.cost(choice, shape, stage, o.promptLen(), program);
        if (costed.isEmpty()) {
          continue;
        }
        StageRow row = summarize(stage.key(), choice, costed.get());
        rows.put(choice, row);
        stages.add(row);
        for (StageCosting.Costed c : costed.get()) {
          OpCost k = c.cost();
          operators.add(new OpRow(stage.key(), choice, c.op().name(), c.op().kind().name(), c.op().kind().light,
              c.op().calls(), k.opS(), k.callS(), k.commS(), k.energyJ(), k.backend()));
        }
      }
      StageRow best = rows.values().stream().min(java.util.Comparator.comparingDouble(StageRow::timeS)).orElseThrow();
      StageRow choice = new StageRow(stage.key(), "per-stage choice: " + best.backend(), best.timeS(), best.energyJ(),
          best.opS(), best.callToOpRatio(), best.commShare(), best.quantShare(), best.fallbackOps());
      stages.add(choice);
      rows.put("choice", choice);
      byStage.put(stage.key(), rows);
    }
    stages.addAll(endToEnd(byStage, o.genTokens()));
    List<String> notes = new ArrayList<>();
    o.npu().override(preset.npuPreset()).ifPresent(s -> notes.add("npu configuration: " + s));
    notes.add("npu: " + npu.target().name() + " at " + npu.target().clockMhz() + " MHz, " + o.quant() + " weights, fusion "
        + o.fusion() + "; program cycles from the cycle model (npu estimate), energy from the shipped energy table "
        + "(npu report energy, 7 nm); per-operator NPU times attribute the program's Vector DSP cycles to the DSP "
        + "work (light operators, softmax) and the rest to the matrix products, each by its standalone cycle-model "
        + "cost");
    notes.add("end-to-end: prefill + " + o.genTokens() + " decode steps, each costed as the step at position "
        + o.promptLen());
    notes.add("cpu/gpu weights " + preset.host().bitsPerWeight().value() + " bit (" + preset.host().bitsPerWeight()
        .source() + ")");
    if (!o.sharedBuffer()) {
      notes.add("no shared buffers: tensors crossing backends are copied at " + preset.host().copyGBs().value()
          + " GB/s");
    }
    Result partial = new Result(o, preset, shape, stages, operators, List.of(), notes, programs);
    return new Result(o, preset, shape, stages, operators, StageFindings.of(partial, costing), notes, programs);
  }

  private static StageRow summarize(String stage, String backend, List<StageCosting.Costed> costed) {
    double time = 0;
    double op = 0;
    double comm = 0;
    double quant = 0;
    double energy = 0;
    List<String> fallbacks = new ArrayList<>();
    for (StageCosting.Costed c : costed) {
      time += c.cost().callS();
      op += c.cost().opS();
      comm += c.cost().commS();
      energy += c.cost().energyJ();
      if (c.op().kind() == Operator.Kind.QUANT) {
        quant += c.cost().callS();
      }
      if (c.cost().backend().contains("fallback")) {
        fallbacks.add(c.op().name());
      }
    }
    return new StageRow(stage, backend, time, energy, op, op > 0 ? time / op : 0, time > 0 ? comm / time : 0,
        time > 0 ? quant / time : 0, fallbacks);
  }

  /** Prefill + genTokens decode steps on each choice present in both stages, and on the per-stage choice. */
  private static List<StageRow> endToEnd(Map<String, Map<String, StageRow>> byStage, int gen) {
    List<StageRow> out = new ArrayList<>();
    Map<String, StageRow> pre = byStage.get("prefill");
    Map<String, StageRow> dec = byStage.get("decode");
    for (String k : pre.keySet()) {
      StageRow p = pre.get(k);
      StageRow d = dec.get(k);
      if (d == null) {
        continue;
      }
      String name = k.equals("choice") ? "per-stage choice: " + p.backend().substring(18) + " + "
          + d.backend().substring(18) : k;
      double time = p.timeS() + gen * d.timeS();
      double op = p.opS() + gen * d.opS();
      out.add(new StageRow("end-to-end", name, time, p.energyJ() + gen * d.energyJ(), op, op > 0 ? time / op : 0,
          (p.commShare() * p.timeS() + gen * d.commShare() * d.timeS()) / time,
          (p.quantShare() * p.timeS() + gen * d.quantShare() * d.timeS()) / time, List.of()));
    }
    return out;
  }
}
