package org.llmnpu.soc;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.llmnpu.reports.npu.SocSection;
import org.llmnpu.soc.shadow.ShadowFindings;
import org.llmnpu.soc.shadow.ShadowStudy;
import org.llmnpu.sw.shadow.ShadowEvaluation;

/**
 * The SoC section of {@code npu report npu} ({@link SocSection}), computed from the SoC model when the report is
 * gathered (nothing retyped from {@link SocFigures}): the stage analysis of llama-3.2-3b on sd8gen3 at a 321-token
 * prompt ({@link StageAnalysis}, {@code --npu ours} for the charts, {@code --npu paper} too for the findings only
 * that setting has) and the HeteroInfer plan of LLaMA-3-8B on sd8gen3 at 300 tokens with fast synchronization
 * ({@link HeteroPlan}). Charts: per stage the time and energy of each backend choice, call vs op time of the light
 * operators in one decode step with one NPU graph per operator, and the NPU's share of every matrix product in the
 * plan. Findings: {@link StageFindings}, the partition findings and ShadowNPU's ({@link ShadowFindings}: seed 000,
 * its study on stories260K at 512 tokens with 2 profiling and 2 held-out sequences), each with our figure, the
 * paper's, agrees or not and why. The measured {@code host} preset is not used (it times kernels; the report stays
 * deterministic). Runs in about a minute: seconds for the cycle model and rooflines, the rest ShadowNPU's FP32,
 * INT8 and sparse prefills of stories260K.
 */
public final class SocReportSection {
  static final String PRESET = "sd8gen3";
  static final String STAGE_MODEL = "llama-3.2-3b";
  static final int STAGE_PROMPT = 321;
  static final String PLAN_MODEL = "llama-3-8b";
  static final int PLAN_PROMPT = 300;

  private SocReportSection() {
  }

  /** The section. */
  public static SocSection build() {
    StageAnalysis.Result ours = StageAnalysis.run(options("ours"));
    StageAnalysis.Result paper = StageAnalysis.run(options("paper"));
    HeteroPlan.Result plan = HeteroPlan.run(new HeteroPlan.Options(PRESET, PLAN_MODEL, PLAN_PROMPT, "int4",
        "full", "fast"));
    List<SocSection.Chart> charts = new ArrayList<>();
    for (String stage : List.of("prefill", "decode")) {
      charts.add(stageChart(ours, stage, true));
      charts.add(stageChart(ours, stage, false));
    }
    charts.add(callVsOp(ours));
    charts.add(planChart(plan));
    List<SocSection.Finding> findings = new ArrayList<>();
    Set<String> ids = new LinkedHashSet<>();
    String stageSrc = "seed 001, " + STAGE_MODEL + " on " + PRESET + ", " + STAGE_PROMPT + " tokens";
    add(findings, ids, ours.findings(), stageSrc + ", --npu ours");
    add(findings, ids, paper.findings(), stageSrc + ", --npu paper");
    add(findings, ids, plan.findings(), "seed 002, " + PLAN_MODEL + " on " + PRESET + ", " + PLAN_PROMPT
        + " tokens, fast sync");
    ShadowStudy.Result shadow = shadowStudy();
    add(findings, ids, ShadowFindings.of(shadow), "seed 000, stories260K (real weights) at 512 tokens, 2 held-out "
        + "sequences; pipeline on " + PRESET + " (./npu sw shadow --held-out 2 --calibration 2)");
    String intro = String.format(Locale.ROOT, "Computed from the SoC model (module soc) when this report was "
        + "gathered: our NPU is the edge-64 estimate preset on its cycle model and energy table, the CPU and GPU are "
        + "the cited rooflines of the %s preset (trends, not the papers' devices). Stage charts and the seed 001 "
        + "findings: %s at a %d-token prompt (./npu soc analyze --preset %s --model %s --prompt-len %d); partition "
        + "plan and the seed 002 findings: %s at %d tokens (./npu soc partition --preset %s --model %s "
        + "--prompt-len %d): each matrix product MxKxN is split between the NPU (the share shown) and the GPU, by the "
        + "partition kind named, (swap) when the NPU runs its part in the swapped order. Figures at other prompts: "
        + "bench-results/SocFigures.txt.", PRESET, STAGE_MODEL,
        STAGE_PROMPT, PRESET, STAGE_MODEL, STAGE_PROMPT, PLAN_MODEL, PLAN_PROMPT, PRESET, PLAN_MODEL, PLAN_PROMPT);
    return new SocSection(intro, charts, findings);
  }

  /** ShadowNPU's study at a report's budget: 2 profiling and 2 held-out sequences of 512 tokens. */
  static ShadowStudy.Result shadowStudy() {
    try {
      return ShadowStudy.run("stories260K", PRESET, new ShadowEvaluation.Settings(512, 2, 2, 0.99, 8, 8, 1.25, 64),
          1024);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static StageAnalysis.Options options(String npu) {
    return new StageAnalysis.Options(PRESET, STAGE_MODEL, STAGE_PROMPT, 128, "int4", "full", npu, true, true,
        List.of("cpu", "gpu", "npu"));
  }

  private static void add(List<SocSection.Finding> out, Set<String> ids, List<StageFindings.Finding> found,
                          String source) {
    for (StageFindings.Finding f : found) {
      if (ids.add(f.id())) {
        out.add(new SocSection.Finding(source, f.id(), f.ours(), f.paper(), f.agrees(), f.why()));
      }
    }
  }

  /** Time (ms) or energy (mJ) of the stage on each backend choice, the per-stage choice included. */
  static SocSection.Chart stageChart(StageAnalysis.Result r, String stage, boolean time) {
    List<SocSection.Bar> bars = r.stages().stream().filter(s -> s.stage().equals(stage))
        .map(s -> new SocSection.Bar(s.backend(), 1e3 * (time ? s.timeS() : s.energyJ()))).toList();
    return new SocSection.Chart(String.format(Locale.ROOT, "%s %s by backend (%s, %s, %d tokens)", stage,
        time ? "time" : "energy", STAGE_MODEL, PRESET, STAGE_PROMPT), time ? "ms" : "mJ", bars);
  }

  /** Call and op time (µs, all calls of one decode step) of each light operator with one NPU graph per operator. */
  static SocSection.Chart callVsOp(StageAnalysis.Result r) {
    List<SocSection.Bar> bars = new ArrayList<>();
    r.operators().stream().filter(o -> o.stage().equals("decode") && o.backend().equals("npu-per-op") && o.light())
        .forEach(o -> {
          bars.add(new SocSection.Bar(o.op() + " call", 1e6 * o.callS()));
          bars.add(new SocSection.Bar(o.op() + " op", 1e6 * o.opS()));
        });
    return new SocSection.Chart("light operators: call vs op time (a decode step, one NPU graph per operator)", "µs",
        bars);
  }

  /** The NPU's share (%) of each matrix product of the plan, labelled by stage, product, shape and partition. */
  static SocSection.Chart planChart(HeteroPlan.Result plan) {
    List<SocSection.Bar> bars = plan.plan().stream().map(s -> new SocSection.Bar(String.format(Locale.ROOT,
        "%s %s %dx%dx%d %s%s", s.stage(), s.op(), s.m(), s.k(), s.n(), s.partition().kind().key(),
        s.partition().swapped() ? " (swap)" : ""), 100 * s.partition().npuShare(s.m(), s.n()))).toList();
    return new SocSection.Chart(String.format(Locale.ROOT, "partition plan: NPU share per product (%s, %s, %d "
        + "tokens)", PLAN_MODEL, PRESET, PLAN_PROMPT), "%", bars);
  }
}
