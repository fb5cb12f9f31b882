package org.llmnpu.cosim.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.reports.energy.EnergyAction;
import org.llmnpu.reports.energy.EnergyEstimate;
import org.llmnpu.reports.energy.EnergyTable;
import org.llmnpu.reports.npu.NpuReport;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.sw.lower.DecoderGemms;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The "seed trends" rows of the NPU report: each seed finding (/work SEED-FIGURES, paper 003)
 * with our figure — computed here from the NPU's counters, its cycle model and the energy
 * table where the toolkit measures it, else taken from a module's documented measurement (named
 * in the row) — whether the trend agrees, and why; "not measured" with the reason otherwise.
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

  SeedTrends(MachineParams mp, ModelConfig model, int prompt, EnergyTable table, EnergyEstimate.Shape shape,
             List<NpuReport.PhaseEnergy> phases, Golden golden) {
    this.mp = mp;
    this.model = model;
    this.prompt = prompt;
    this.table = table;
    this.shape = shape;
    this.phases = phases;
    this.golden = golden;
  }

  private static String pct(double v) {
    return String.format(Locale.ROOT, "%+.1f %%", 100 * v);
  }

  private static String x(double v) {
    return String.format(Locale.ROOT, "%.2f×", v);
  }

  List<NpuReport.Trend> rows() {
    List<NpuReport.Trend> out = new ArrayList<>();
    out.add(sparsity());
    out.add(guarded("INT8 → INT4 weights: decode vs prefill gain",
        "decode gains far more than prefill (decode is memory-bound)", this::int4));
    out.add(new NpuReport.Trend("operator fusion lowers prefill TTFT",
        "−17 % LLaMA3.1-8B, −48 % Phi3.5-mini, −31 % Qwen2-1.5B",
        "estimated prefill time −71 % (tiny), −62 % (medium); off-chip traffic 143 → 25 KiB/token (tiny)",
        "agrees", "Same direction, larger: our baseline is fully unfused (every op a dispatch, INT8 weight copies and "
        + "INT32 accumulators off-chip), while real runtimes already fuse some of it. Estimated with sw-stack's "
        + "latency model, not on the NPU RTL: the NPU has no fused kernels yet.",
        "sw-stack README, 'Fusion and tiling (issue 7)' (npu sw passes)"));
    out.add(guarded("KV eviction: decode speed vs budget", "smaller KV budget → faster decode (LLaMA3.1-8B)",
        this::kv));
    out.add(new NpuReport.Trend("PiM / near-memory vs systolic: energy efficiency and latency",
        "3–5× energy efficiency, 2× latency",
        "decode GEMV energy 2.5–5.9× lower (weights reloaded), 60–100× (resident); latency 0.58–1.16× "
        + "(reloaded), 5.2–9.4× faster (resident); prefill energy only 1.6–1.9×",
        "partly", "Energy agrees for decode: a weight-stationary array spends most energy moving weights that a GEMV "
        + "uses once. Latency agrees only with weights resident in the macros: reloading a single macro cannot "
        + "overlap compute and its clock is lower (119 vs 181 MHz).",
        "pim-macro README, 'PiM vs the systolic array' (PimVsSystolicBench, 16×16 synthesized, stories260K and "
        + "LLaMA-7B shapes)"));
    out.add(new NpuReport.Trend("N:M sparsity accuracy: 4:8 more accurate than 2:4",
        "4:8 consistently better (LLaMA3-8B, Qwen2.5-3B)",
        "stories260K KL: magnitude 5.42 vs 5.87, Wanda 5.09 vs 5.66, SparseGPT 4.57 vs 4.99 (4:8 vs 2:4)", "agrees",
        "Holds for every pruning method; no 50 % pruning is usable on a 260K-parameter model (no fine-tuning here).",
        "sw-stack README, 'Against the seed, on the real model' (npu sw eval)"));
    out.add(new NpuReport.Trend("MXFP8 about as accurate as INT8", "MXFP8 ≈ 1.3 % above INT8 (LLaMA3-8B)",
        "stories260K KL: MXFP8 0.451 vs per-channel INT8 0.032 (MXINT8 0.044)", "disagrees",
        "E4M3 elements with a power-of-two block scale lose far more than per-channel INT8 on this small model.",
        "sw-stack README, 'Against the seed, on the real model'"));
    out.add(new NpuReport.Trend("NPU J/token vs CPU and GPU", "NPU 1.58× better than CPU, 1.2× than GPU (Lunar Lake)",
        "", "not measured", "The toolkit models the NPU only; it has no CPU or GPU energy model to compare with.",
        "—"));
    return out;
  }

  /** A row computed on this NPU, or "not measured" with the reason when its programs do not fit the NPU. */
  private static NpuReport.Trend guarded(String finding, String seed, java.util.function.Supplier<NpuReport.Trend> row) {
    try {
      return row.get();
    } catch (IllegalArgumentException e) {
      return new NpuReport.Trend(finding, seed, "", "not measured", "its programs do not fit this NPU: "
          + e.getMessage(), "—");
    }
  }

  private NpuReport.Trend sparsity() {
    String seed = "prefill latency −48 %, decode −49 %; NPU eTOPS/W 1.69× prefill, 1.23× decode (LLaMA2-7B)";
    if (!table.entries().containsKey(EnergyAction.MAC_2_4) || !table.entries().containsKey(EnergyAction.MAC)) {
      return new NpuReport.Trend("2:4 sparsity: speed-up and eTOPS/W", seed, "", "not measured",
          "the energy table has no MAC_2_4 entry" + (table.notMeasured().containsKey(EnergyAction.MAC_2_4)
          ? ": " + table.notMeasured().get(EnergyAction.MAC_2_4) : ""), "—");
    }
    NodeScaling.Node n = NodeScaling.Node.N180;
    double perMac = (table.pj(EnergyAction.MAC_2_4, n) / 2) / table.pj(EnergyAction.MAC, n);
    StringBuilder ours = new StringBuilder(String.format(Locale.ROOT, "GEMM engine cycles ÷1.94–2.00 on K-bound "
        + "GEMMs (−48…−50 %%); array energy per dense-equivalent MAC %s the dense one; eTOPS/W on our phase "
        + "counters:", x(perMac)));
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
        "Compute latency halves as in the seed (zero-skipping over K). Energy: only the array's MAC energy changes, "
        + "and the MAC array is " + shares + " of the energy in these counters; idle clocking, scratchpad and "
        + "external memory dominate, and DMA bytes stay dense (the NPU's load path has no 2:4 weights yet), so the "
        + "eTOPS/W gain here is a lower bound"
        + (energyAgrees ? "; as in the seed it is larger for prefill than for decode." : " and does not show the "
        + "seed's 1.69×/1.23×. A 2:4 PE also costs more per executed MAC (wider activation path)."),
        "npu-rtl README '2:4 zero-skipping on 16×16'; this report's energy table and phase counters");
  }

  private NpuReport.Trend int4() {
    String seed = "decode gains far more than prefill (decode is memory-bound)";
    MachineParams narrow = mp.withMemory(mp.memLatency(), Math.max(1, mp.lineBytes() / 4));
    double[] here = int4Gains(mp);
    double[] slow = int4Gains(narrow);
    String ours = String.format(Locale.ROOT, "NPU cycles with INT4 weights (load4) vs INT8, %d B/cycle memory: "
        + "prefill %s, decode %s; with a %d B/cycle memory: prefill %s, decode %s; sw-stack latency model "
        + "(medium): prefill 0 %%, decode −10 %%", Math.min(mp.lineBytes(), mp.memBytesPerCycle()), pct(-here[0]),
        pct(-here[1]), narrow.memBytesPerCycle(), pct(-slow[0]), pct(-slow[1]));
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
        why + " Cycles from the golden ISA simulator's cycle model; load4's cycle formula is provisional until the "
            + "RTL implements it.",
        "this report: the decoder's GEMM programs with load4 weights through IsaSimulator; sw-stack README "
        + "'Weight formats on the fused graph'");
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
    ours.append("; sw-stack Java decode 3.00 → 0.58 ms/token (tiny, context 2048, budget 128)");
    return new NpuReport.Trend("KV eviction: decode speed vs budget", seed, ours.toString(),
        monotone ? "agrees" : "disagrees",
        "The attention GEMMs of a decode step (scores and values) scale with the kept tokens; the weight GEMMs do not, "
            + "so the speed-up is bounded by the attention share (small for stories260K's 8-wide heads). GEMM-only "
            + "cycles; the eviction's own scoring is not counted.",
        "this report: decode-step GEMM programs at each context through the cycle model; sw-stack README KV tables "
            + "(npu sw kv)");
  }
}
