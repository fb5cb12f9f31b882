package org.llmnpu.cosim.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.CycleFormulas;
import org.llmnpu.isa.CycleModel;
import org.llmnpu.isa.EngineTiming;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.reports.energy.EnergyAction;
import org.llmnpu.reports.energy.EnergyEstimate;
import org.llmnpu.reports.energy.EnergyTable;
import org.llmnpu.reports.npu.NpuReport;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.sw.lower.DecoderGemms;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The "seed trends" rows of the NPU report: each seed finding (/work SEED-FIGURES, paper 003)
 * with our figure, whether the trend agrees, and why. Every figure is computed here: from the NPU's
 * cycle model, its phase counters and the energy table, or from a benchmark's recorded result
 * ({@link BenchResults}: {@code bench-results/<Bench>.txt}, named in the row with its date and command);
 * a row whose input is missing says "not measured" and why. No figure is written in this class. The seed-004
 * (llada.cpp, diffusion decoding) rows come from {@link DllmTrends}, read from the recorded {@code DllmBench}.
 */
final class SeedTrends {
  /** Runs GEMMs through the golden ISA simulator and its cycle model. */
  interface Golden {
    IsaSimulator.Result run(MachineParams mp, List<DecoderGemms.Gemm> gemms, boolean int4Weights);
  }

  private final MachineParams mp;
  private final ModelConfig model;
  private final int prompt;
  private final EnergyTable table;
  private final EnergyEstimate.Shape shape;
  private final List<NpuReport.PhaseEnergy> phases;
  private final Golden golden;
  private final EngineTiming engine;
  private final BenchResults bench;
  private final RecordedTrends recorded;

  /**
   * @param engine the NPU's GEMM engine (a systolic NPU's PiM row compares with {@link #PIM_COMPARED})
   * @param bench  the recorded benchmark results the rows quote
   */
  SeedTrends(MachineParams mp, ModelConfig model, int prompt, EnergyTable table, EnergyEstimate.Shape shape,
             List<NpuReport.PhaseEnergy> phases, Golden golden, EngineTiming engine, BenchResults bench) {
    this.engine = engine;
    this.bench = bench;
    this.recorded = new RecordedTrends(bench);
    this.mp = mp;
    this.model = model;
    this.prompt = prompt;
    this.table = table;
    this.shape = shape;
    this.phases = phases;
    this.golden = golden;
  }

  static String pct(double v) {
    return String.format(Locale.ROOT, "%+.1f %%", 100 * v);
  }

  private static String x(double v) {
    return String.format(Locale.ROOT, "%.2f×", v);
  }

  List<NpuReport.Trend> rows() {
    return withSparsity(modelRows());
  }

  /**
   * The rows that need neither the energy table nor the phases' counters (the cycle model's and the recorded
   * benchmarks'), in {@link #rows}'s order after its first row, the sparsity row: a job graph makes them while the
   * energy table is calibrated, and the report puts the sparsity row before them ({@link #withSparsity}).
   */
  static List<NpuReport.Trend> modelRows(MachineParams mp, ModelConfig model, int prompt, Golden golden,
                                         EngineTiming engine, BenchResults bench) {
    // no table, shape or phases: modelRows() does not read them
    return new SeedTrends(mp, model, prompt, null, null, List.of(), golden, engine, bench).modelRows();
  }

  /** The sparsity row (the energy table and phases of this report) then {@code modelRows}: {@link #rows}. */
  List<NpuReport.Trend> withSparsity(List<NpuReport.Trend> modelRows) {
    List<NpuReport.Trend> out = new ArrayList<>();
    out.add(sparsity());
    out.addAll(modelRows);
    return out;
  }

  private List<NpuReport.Trend> modelRows() {
    List<NpuReport.Trend> out = new ArrayList<>();
    out.add(guarded("INT8 → INT4 weights: decode vs prefill gain",
        "decode gains far more than prefill (decode is memory-bound)", this::int4));
    out.add(fusion());
    out.add(guarded("KV eviction: decode speed vs budget", "smaller KV budget → faster decode (LLaMA3.1-8B)",
        this::kv));
    out.add(guarded(PIM_FINDING, PIM_SEED, this::pim));
    out.add(recorded.nmAccuracy());
    out.add(recorded.mxfp8());
    out.add(ProgramTrends.energyVsCpuGpu());
    out.addAll(new DllmTrends(bench).rows());
    return out;
  }

  static final String SW_BENCH = "SwFiguresBench";
  private static final String PIM_FINDING = "PiM / near-memory vs systolic: energy efficiency and latency";
  private static final String PIM_SEED = "3–5× energy efficiency, 2× latency";
  /** The PiM engine a systolic NPU's PiM row compares with: 4 input bits a cycle ({@code engine=pim-k4}). */
  static final EngineTiming PIM_COMPARED = EngineTiming.pim(4);

  /** The LLaMA-class models of the fusion row on edge-64 (the seed's Phi-3.5-mini shape is not shipped). */
  static final List<String> FUSION_MODELS = List.of("llama-3.1-8b", "qwen2.5-1.5b");

  private NpuReport.Trend fusion() {
    String finding = "operator fusion lowers prefill TTFT";
    String seed = "−17 % LLaMA3.1-8B, −48 % Phi3.5-mini, −31 % Qwen2-1.5B";
    java.util.Optional<Double> here = new ProgramTrends(mp, model, prompt).fusionGainHere();
    Map<String, Double> edge = ProgramTrends.fusionGainsOnEdge(FUSION_MODELS);
    if (here.isEmpty() && edge.isEmpty()) {
      return RecordedTrends.notMeasured(finding, seed, "neither this NPU nor " + ProgramTrends.EDGE
          + " runs both fusion levels' programs: " + ProgramTrends.edgeFailure(FUSION_MODELS.get(0), "int8", Fusion.FULL, 0));
    }
    StringBuilder ours = new StringBuilder("prefill cycles, fusion full vs none (whole INT8 programs):");
    boolean faster = true;
    if (here.isPresent()) {
      ours.append(String.format(Locale.ROOT, " %d-token prompt on this NPU %s", prompt, pct(here.get())));
      faster &= here.get() < 0;
    } else {
      ours.append(" this NPU does not run fusion full");
    }
    if (!edge.isEmpty()) {
      ours.append("; ").append(ProgramTrends.EDGE).append(", ").append(ProgramTrends.EDGE_PROMPT)
          .append("-token prompt: ").append(String.join(", ", ProgramTrends.fmtGains(edge)));
      faster &= edge.values().stream().allMatch(g -> g < 0);
    }
    ours.append("; ").append(recorded.swFusion());
    return new NpuReport.Trend(finding, seed, ours.toString(), faster ? "agrees" : "disagrees",
        (faster ? "Same direction. " : "Fusion does not shorten every prefill here. ") + "Fusion full streams the "
        + "weights into the array, sends GEMM results through the PPM (requantization, the SiLU C-LUT) and keeps "
        + "attention's P·V on chip; RMSNorm, RoPE, SoftMax and the scores stay on the Vector DSP, whose data moves "
        + "cost most of what remains. The seed's runtime fuses into a graph compiler's kernels and its baseline is "
        + "already partly fused, so the magnitudes differ; Phi-3.5-mini's shape is not shipped.",
        "this report: the lowered programs' cycle model (RTL-validated) on the report's model and, for "
        + ProgramTrends.EDGE + ", npu estimate --preset " + ProgramTrends.EDGE + " --fusion none|full");
  }

  /** PiM engine against the systolic array on the decoder's GEMMs, by the cycle model (engine cycles). */
  private NpuReport.Trend pim() {
    EngineTiming pimEngine = engine.pim() ? engine : PIM_COMPARED;
    double[] ratio = new double[2];
    String[] phase = {"prefill", "decode"};
    int[] tokens = {prompt, 1};
    int[] ctx = {prompt, prompt + 1};
    for (int i = 0; i < 2; i++) {
      long systolic = 0;
      long pimCycles = 0;
      for (DecoderGemms.Gemm g : DecoderGemms.phase(model, tokens[i], ctx[i])) {
        systolic += EngineTiming.SYSTOLIC.engineCycles(mp, g.m(), g.k(), g.n());
        pimCycles += pimEngine.engineCycles(mp, g.m(), g.k(), g.n());
      }
      ratio[i] = (double) pimCycles / systolic;
    }
    String ours = String.format(Locale.ROOT, "GEMM engine cycles of the decoder's GEMMs, PiM (%d input bit%s a "
        + "cycle, weights rewritten every pass) over the %d×%d systolic array's: prefill %s, decode %s (above 1×: "
        + "PiM slower); energy not measured by this report", pimEngine.bitsPerCycle(), pimEngine.bitsPerCycle() == 1 ? "" : "s", mp.rows(),
        mp.rows(), x(ratio[0]), x(ratio[1]));
    boolean faster = ratio[1] <= 0.5;
    return new NpuReport.Trend(PIM_FINDING, PIM_SEED, ours, faster ? "partly" : "disagrees",
        (faster ? "Decode latency agrees" : "Latency disagrees") + ": the PiM engine writes each pass's weight rows "
        + "into its macro before streaming the vectors, which a GEMV uses once, so it cannot keep weights resident as "
        + "the seed's macros do. Energy per token needs the PiM engine's calibrated actions on a PiM NPU's phases "
        + "(npu report npu -p engine=pim); this row does not compare energy.",
        "this report: EngineTiming's cycle formulas (RTL-validated) on the decoder's GEMMs at " + prompt
            + " prompt tokens");
  }

  /** A row computed on this NPU, or "not measured" with the reason when its programs do not fit the NPU. */
  private static NpuReport.Trend guarded(String finding, String seed, java.util.function.Supplier<NpuReport.Trend> row) {
    try {
      return row.get();
    } catch (IllegalArgumentException e) {
      return RecordedTrends.notMeasured(finding, seed, "its programs do not fit this NPU: " + e.getMessage());
    }
  }

  private NpuReport.Trend sparsity() {
    String seed = "prefill latency −48 %, decode −49 %; NPU eTOPS/W 1.69× prefill, 1.23× decode (LLaMA2-7B)";
    // the 2:4 array folds 2·rows of K into one weight tile (CycleModel's sparse GEMM)
    double[] speedUp = new double[2];
    int[] tokens = {prompt, 1};
    int[] ctx = {prompt, prompt + 1};
    for (int i = 0; i < 2; i++) {
      long dense = 0;
      long sparse = 0;
      for (DecoderGemms.Gemm g : DecoderGemms.phase(model, tokens[i], ctx[i])) {
        dense += CycleFormulas.engineCycles(mp.rows(), mp.rows(), mp.mTile(), g.m(), g.k(), g.n());
        sparse += CycleFormulas.engineCyclesOverKTiles(mp.rows(), mp.rows(), mp.mTile(), g.m(),
            (g.k() + 2L * mp.rows() - 1) / (2L * mp.rows()), g.n());
      }
      speedUp[i] = (double) dense / sparse;
    }
    double hi = Math.min(speedUp[0], speedUp[1]);
    String cycles = String.format(Locale.ROOT, "GEMM engine cycles of the decoder's GEMMs with 2:4 weights: prefill "
        + "÷%.2f (%s), decode ÷%.2f (%s)", speedUp[0], pct(1 / speedUp[0] - 1), speedUp[1], pct(1 / speedUp[1] - 1));
    cycles += "; " + edgeRatios("LLaMA-2-7B", "llama-2-7b", "s2_4", "int8", 0);
    String cyclesSource = "this report: CycleModel's dense and 2:4 engine cycles (RTL-validated) on the decoder's GEMMs"
        + "; npu estimate --preset " + ProgramTrends.EDGE + " --model llama-2-7b --quant s2_4|int8 --fusion full";
    if (!table.entries().containsKey(EnergyAction.MAC_2_4) || !table.entries().containsKey(EnergyAction.MAC)) {
      return new NpuReport.Trend("2:4 sparsity: speed-up and eTOPS/W", seed, cycles + "; eTOPS/W not measured",
          hi >= 1.8 ? "partly" : "disagrees", "eTOPS/W: the energy table has no MAC_2_4 entry"
          + (table.notMeasured().containsKey(EnergyAction.MAC_2_4)
          ? ": " + table.notMeasured().get(EnergyAction.MAC_2_4) : ""), cyclesSource);
    }
    NodeScaling.Node n = NodeScaling.Node.N180;
    double perMac = (table.pj(EnergyAction.MAC_2_4, n) / 2) / table.pj(EnergyAction.MAC, n);
    StringBuilder ours = new StringBuilder(String.format(Locale.ROOT, "%s; array energy per dense-equivalent MAC "
        + "%s the dense one; eTOPS/W on our phase counters:", cycles, x(perMac)));
    double[] gains = new double[phases.size()];
    StringBuilder shares = new StringBuilder();
    for (int i = 0; i < phases.size(); i++) {
      NpuReport.PhaseEnergy p = phases.get(i);
      // on the systolic array (a PiM engine's phases are compared as if they ran on it)
      EnergyEstimate dense = shape.pimRows() == 0 ? p.estimates().get(n)
          : EnergyEstimate.of(table, n, p.counters(), shape.withPimRows(0));
      EnergyEstimate sparse = EnergyEstimate.of(table, n, p.counters(), shape.withPimRows(0).withSparse24(true));
      gains[i] = dense.totalPj() / sparse.totalPj();
      ours.append(String.format(Locale.ROOT, " %s %s", p.phase(), x(gains[i])));
      shares.append(String.format(Locale.ROOT, "%s%.1f %% (%s)", i == 0 ? "" : ", ",
          100 * dense.byUnitPj().getOrDefault("MAC array", 0.0) / dense.totalPj(), p.phase()));
    }
    boolean energyAgrees = gains.length == 2 && gains[0] > 1.05 && gains[0] > gains[1];
    return new NpuReport.Trend("2:4 sparsity: speed-up and eTOPS/W", seed, ours.toString(),
        energyAgrees ? "agrees" : "partly",
        (hi >= 1.8 ? "Compute latency halves as in the seed (zero-skipping over K). "
        : "Compute latency gains less than the seed's halving on these shapes (K tiles that 2:4 cannot fold). ")
        + "Energy: only the array's MAC energy changes, "
        + "and the MAC array is " + shares + " of the energy in these counters; idle clocking, scratchpad and "
        + "external memory dominate, and these counters are the dense programs' (their DMA bytes dense; the packed "
        + "2:4 weight stream shows in the " + ProgramTrends.EDGE + " figures), so the eTOPS/W gain here is a lower "
        + "bound"
        + (energyAgrees ? "; as in the seed it is larger for prefill than for decode." : " and does not show the "
        + "seed's 1.69×/1.23×." + (table.pj(EnergyAction.MAC_2_4, n) > table.pj(EnergyAction.MAC, n)
        ? " A 2:4 PE also costs more per executed MAC (wider activation path)." : "")),
        cyclesSource + "; this report's energy table and phase counters");
  }

  private NpuReport.Trend int4() {
    String seed = "decode gains far more than prefill (decode is memory-bound)";
    MachineParams narrow = mp.withMemory(mp.memLatency(), Math.max(1, mp.lineBytes() / 4));
    double[] here = int4Gains(mp);
    double[] slow = int4Gains(narrow);
    String ours = String.format(Locale.ROOT, "NPU cycles with INT4 weights (load4) vs INT8, %d B/cycle memory: "
        + "prefill %s, decode %s; with a %d B/cycle memory: prefill %s, decode %s; %s",
        Math.min(mp.lineBytes(), mp.memBytesPerCycle()), pct(-here[0]), pct(-here[1]), narrow.memBytesPerCycle(),
        pct(-slow[0]), pct(-slow[1]), recorded.swInt4()) + "; " + edgeRatios("LLaMA-3-8B", "llama-3-8b", "int4-g32", "int8", 16);
    boolean agrees = here[1] > here[0] + 0.03;
    boolean slowAgrees = slow[1] > slow[0] + 0.03;
    String why = agrees ? "INT4 halves the weight bytes; decode streams every weight once per token and waits on "
        + "memory, prefill reuses each weight across the prompt and waits on the array."
        : slowAgrees ? "Only when memory is the bottleneck: at this NPU's memory (a line per cycle, like the "
        + "scratchpad's write port) load4 still writes the same scratchpad lines, so fewer source bytes do not "
        + "shorten a load; with a slower memory decode gains and prefill does not, as in the seed."
        : "Neither memory makes decode gain: per-load latency and command overheads dominate at this model size.";
    return new NpuReport.Trend("INT8 → INT4 weights: decode vs prefill gain", seed, ours,
        agrees ? "agrees" : slowAgrees ? "partly" : "disagrees",
        why + " Cycles from the golden ISA simulator's cycle model.",
        "this report: the decoder's GEMM programs with load4 weights through IsaSimulator; the sw-stack latency "
        + "model's figures: " + bench.section(SW_BENCH, "fusionAndTiling").map(BenchResults.Section::citation)
        .orElse("not measured"));
  }

  /** Whole programs of {@code quant} against {@code base} on edge-64: TTFT, TPOT and DRAM bytes per token ratios. */
  private static String edgeRatios(String label, String modelName, String quant, String base, double gbs) {
    String where = String.format(Locale.ROOT, "whole programs on %s%s (%s, %d-token prompt, fusion full)",
        ProgramTrends.EDGE, gbs > 0 ? String.format(Locale.ROOT, " at %.0f GB/s", gbs) : "", label,
        ProgramTrends.EDGE_PROMPT);
    return ProgramTrends.edgeRatios(modelName, quant, base, gbs).map(r -> String.format(Locale.ROOT,
        "%s: %s vs %s TTFT %s, TPOT %s (DRAM bytes per token %s)", where, quant, base, x(r[0]), x(r[1]), x(r[2])))
        .orElse(where + ": not measured (" + ProgramTrends.edgeFailure(modelName, quant, Fusion.FULL, gbs) + ")");
  }

  /** Fractions of cycles INT4 weights save: {prefill, decode}. */
  private double[] int4Gains(MachineParams m) {
    int[] tokens = {prompt, 1};
    int[] ctx = {prompt, prompt + 1};
    double[] out = new double[2];
    for (int i = 0; i < 2; i++) {
      List<DecoderGemms.Gemm> g = DecoderGemms.phase(model, tokens[i], ctx[i]);
      long c8 = golden.run(m, g, false).counter(Counter.CYCLES);
      long c4 = golden.run(m, g, true).counter(Counter.CYCLES);
      out[i] = 1 - (double) c4 / c8;
    }
    return out;
  }

  private NpuReport.Trend kv() {
    String seed = "smaller KV budget → faster decode (LLaMA3.1-8B)";
    int full = model.maxSeqLen();
    long fullCycles = golden.run(mp, DecoderGemms.phase(model, 1, full), false).counter(Counter.CYCLES);
    StringBuilder ours = new StringBuilder(String.format(Locale.ROOT, "decode step at context %d: %,d cycles; with a "
        + "budget of", full, fullCycles));
    boolean monotone = true;
    long prev = fullCycles;
    for (int budget : new int[] {full / 2, full / 4, full / 8}) {
      long cyc = golden.run(mp, DecoderGemms.phase(model, 1, budget), false).counter(Counter.CYCLES);
      monotone &= cyc < prev;
      prev = cyc;
      ours.append(String.format(Locale.ROOT, " %d: %s faster", budget, x((double) fullCycles / cyc)));
    }
    return new NpuReport.Trend("KV eviction: decode speed vs budget", seed, ours.toString(),
        monotone ? "agrees" : "disagrees",
        "The attention GEMMs of a decode step (scores and values) scale with the kept tokens; the weight GEMMs do not, "
            + "so the speed-up is bounded by the attention share (small for " + model.dim() / model.heads()
            + "-wide heads). GEMM-only cycles; the eviction's own scoring is not counted.",
        "this report: decode-step GEMM programs at each context through the cycle model");
  }
}
