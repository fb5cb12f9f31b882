package org.llmnpu.cosim.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.llmnpu.reports.npu.NpuReport;

/**
 * llada.cpp's findings (seed 004: diffusion LLM decoding on mobile NPUs) set next to ours, read from the recorded
 * {@code DllmBench} ({@code bench-results/DllmBench.txt}, soc's {@code org.llmnpu.soc.dllm.bench.DllmBench}: its
 * {@code mechanisms} and {@code staircase} sections), each row naming the section, its date and command. A missing
 * section or figure gives "not measured" with the reason. Which weights the denoiser ran (stories260K adapted to
 * masked diffusion, or its autoregressive weights) is read from the section's first line and stated in each row.
 * {@link #figures} embeds the staircase plot the same benchmark recorded.
 */
final class DllmTrends {
  static final String BENCH = "DllmBench";
  /** The plot {@code DllmBench#staircase} writes next to its text record. */
  static final String STAIRCASE_SVG = "DllmStaircase.svg";
  private static final String SYNTHETIC = " Weights: stories260K's autoregressive weights as the denoiser, not trained "
      + "for diffusion (speed and schedule only).";
  private static final String TRAINED = " Weights: stories260K adapted to masked diffusion by continued training "
      + "(sw-stack DiffusionAdaptation; held-out quality in the section's weights table).";

  /** The weights sentence for a section: trained when its first line says {@code weights: trained}. */
  private static String weights(BenchResults.Section s) {
    return s.body().contains("(weights: trained)") ? TRAINED : SYNTHETIC;
  }

  private final BenchResults bench;

  DllmTrends(BenchResults bench) {
    this.bench = bench;
  }

  private static String f(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }

  List<NpuReport.Trend> rows() {
    List<NpuReport.Trend> out = new ArrayList<>();
    out.add(read("dLLM vs a same-size autoregressive model on the NPU", "up to 3.9× faster", "mechanisms",
        this::versusAutoregressive));
    out.add(read("dLLM on the NPU vs the CPU alone", "17–42× lower latency (prefix KV reuse)", "mechanisms",
        this::versusCpu));
    out.add(read("NPU matmul latency vs token count", "a staircase (fixed tile sizes)", "staircase", this::staircase));
    out.add(read("vector operations on the NPU", "weak: vector ops slow on the NPU", "mechanisms", this::weakVector));
    out.add(read("multi-block speculative decoding", "fills the shrinking late-step workload: lower latency",
        "mechanisms", s -> mechanism(s, "no speculative blocks", "multi-block speculative decoding",
            "a pass's spare rows up to the tile are not free on our NPU (each row's X load and Y store are serial "
            + "DMA: a ramp under the staircase), and a next-block token commits early only at the confidence "
            + "threshold (the section's weights table gives the commits by confidence and the speculative commits)")));
    out.add(read("dual-path progressive revision", "refreshing unstable tokens on the CPU hides its cost",
        "mechanisms", s -> mechanism(s, "revision on the NPU", "dual-path progressive revision",
            "the CPU's revision rows run beside the NPU's pass; on the NPU they add rows to the pass")));
    out.add(read("swap-optimized memory runtime", "compact NPU address space, preparation overlapped: lower latency",
        "mechanisms", s -> mechanism(s, "naive memory runtime", "the swap-optimized memory runtime",
            "without lifetimes every activation buffer and the KV read are staged into the NPU's window before each "
            + "pass; with them only the input and logits rows cross, the command stream built while the NPU runs")));
    return out;
  }

  /**
   * The staircase plot {@code DllmBench#staircase} wrote beside its table ({@code bench-results/}{@value #STAIRCASE_SVG}),
   * when that section passed and the file exists; read as recorded, no new simulation.
   */
  List<NpuReport.Figure> figures() {
    Optional<BenchResults.Section> s = bench.section(BENCH, "staircase");
    if (s.isEmpty() || bench.dir() == null) {
      return List.of();
    }
    Path svg = bench.dir().resolve(STAIRCASE_SVG);
    if (!Files.isRegularFile(svg)) {
      return List.of();
    }
    try {
      return List.of(new NpuReport.Figure("llada.cpp's staircase: a stories260K denoiser pass's NPU cycles against "
          + "its token rows (whole program and array only)", s.get().citation() + "; plot " + BenchResults.FOLDER
          + "/" + STAIRCASE_SVG, Files.readString(svg)));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + svg + ": " + e.getMessage(), e);
    }
  }

  private interface Row {
    NpuReport.Trend of(BenchResults.Section s);
  }

  private NpuReport.Trend read(String finding, String seed, String method, Row row) {
    Optional<BenchResults.Section> s = bench.section(BENCH, method);
    if (s.isEmpty()) {
      return RecordedTrends.notMeasured(finding, seed, bench.missing(BENCH, method));
    }
    try {
      NpuReport.Trend t = row.of(s.get());
      return new NpuReport.Trend(finding, seed, t.ours(), t.verdict(), t.why(), s.get().citation());
    } catch (IllegalArgumentException | NoSuchElementException e) {
      return RecordedTrends.notMeasured(finding, seed, s.get().citation() + " does not hold the figures this row "
          + "reads: " + e.getMessage());
    }
  }

  private static NpuReport.Trend trend(String ours, String verdict, String why) {
    return new NpuReport.Trend("", "", ours, verdict, why, "");
  }

  /** A column of the baselines table: {stories260K, LLaMA-3-8B's shape}. */
  private static double[] baselines(BenchResults.Section s, String column) {
    BenchResults.Table t = s.table("#### baselines").orElseThrow();
    int col = t.column(column, 0);
    double[] out = new double[2];
    String[] models = {"stories260K", "llama-3-8b"};
    for (int i = 0; i < 2; i++) {
      String m = models[i];
      out[i] = BenchResults.Table.number(t.rows().stream().filter(r -> r.get(0).startsWith(m)).findFirst()
          .orElseThrow(() -> new IllegalArgumentException("no baseline row '" + m + "'")).get(col));
    }
    return out;
  }

  private NpuReport.Trend versusAutoregressive(BenchResults.Section s) {
    double[] x = baselines(s, "vs autoregressive");
    double small = x[0];
    double large = x[1];
    String verdict = large > 1.5 ? "agrees" : large > 1 ? "partly" : "disagrees";
    return trend(f("generation on sd8gen3 (edge-64 NPU on the cycle model): stories260K %.2f×, LLaMA-3-8B's shape "
        + "%.2f× (stories260K's schedule)", small, large), verdict, "A diffusion pass streams the weights once for a "
        + "block's tokens, an autoregressive step once a token: at 8B weights the NPU is weight-bound and the gain "
        + "approaches the tokens committed a pass; at 260K every pass costs about one submission, so the gain is the "
        + "pass count's." + weights(s));
  }

  private NpuReport.Trend versusCpu(BenchResults.Section s) {
    double[] x = baselines(s, "vs CPU-only");
    double small = x[0];
    double large = x[1];
    String verdict = Math.min(small, large) >= 10 ? "agrees" : Math.max(small, large) > 1 ? "partly" : "disagrees";
    return trend(f("the same diffusion schedule on the CPU roofline vs on the NPU: stories260K %.2f×, LLaMA-3-8B's "
        + "shape %.2f×", small, large), verdict, "Far below 17–42×: our sd8gen3 CPU roofline streams the weights at "
        + "nearly the NPU's bandwidth and a block's rows keep the CPU near its compute roof only at 8B; a 260K "
        + "model's pass is dominated by the NPU's submission, which the CPU does not pay. The paper's CPU baseline "
        + "is an unoptimized llama.cpp-style run." + weights(s));
  }

  private NpuReport.Trend staircase(BenchResults.Section s) {
    BenchResults.Table t = s.table("#### default NPU").orElseThrow();
    int prog = t.column("program cycles", 0);
    int arr = t.column("array cycles", 0);
    List<List<String>> r = t.rows();
    int tile = -1;
    for (int i = 1; i + 1 < r.size(); i++) {
      long a = (long) BenchResults.Table.number(r.get(i).get(0));
      long b = (long) BenchResults.Table.number(r.get(i + 1).get(0));
      long c = (long) BenchResults.Table.number(r.get(i - 1).get(0));
      if (b == a + 1 && c == a - 1) {
        tile = i;
        break;
      }
    }
    if (tile < 0) {
      throw new IllegalArgumentException("no consecutive rows t-1, t, t+1");
    }
    double below = BenchResults.Table.number(r.get(tile).get(prog)) - BenchResults.Table.number(r.get(tile - 1).get(prog));
    double step = BenchResults.Table.number(r.get(tile + 1).get(prog)) - BenchResults.Table.number(r.get(tile).get(prog));
    double arrBelow = BenchResults.Table.number(r.get(tile).get(arr)) - BenchResults.Table.number(r.get(tile - 1).get(arr));
    double arrStep = BenchResults.Table.number(r.get(tile + 1).get(arr)) - BenchResults.Table.number(r.get(tile).get(arr));
    String at = r.get(tile).get(0);
    boolean agrees = step > 3 * below && arrStep > 10 * Math.max(1, arrBelow);
    return trend(f("default NPU, a stories260K pass: %s -> %s+1 rows adds %.0f cycles, a row below it %.0f (the "
        + "array alone: %.0f vs %.0f)", at, at, step, below, arrStep, arrBelow), agrees ? "agrees" : "disagrees",
        "The engine takes M in chunks of mTile rows and loads every W tile once a chunk; a chunk streams in no more "
        + "cycles than its W tile loads, so the array is flat within a tile and steps past it. The whole program adds "
        + "each row's DMA (serial here): a staircase on a ramp. Cosim: DenoiserPassCosimTest measures the step on the "
        + "RTL.");
  }

  private NpuReport.Trend weakVector(BenchResults.Section s) {
    BenchResults.Table t = s.table("#### weak vector unit").orElseThrow();
    List<String> row = t.rows().get(0);
    double macs = BenchResults.Table.number(row.get(t.column("array MACs", 0)));
    double ops = BenchResults.Table.number(row.get(t.column("DSP operations", 0)));
    double share = BenchResults.Table.number(row.get(t.column("DSP share", 0)));
    boolean agrees = macs / ops >= 16 && share >= 10;
    return trend(f("edge-64: the array does %.0f MACs a cycle, the Vector DSP %.0f operations (%.0f× fewer); the "
        + "DSP takes %.1f %% of a full-tile denoiser pass's cycles", macs, ops, macs / ops, share),
        agrees ? "agrees" : "partly", "SoftMax over the block's scores, RMSNorm, RoPE and SiLU run on the DSP's lanes "
        + "while the array's MACs are rows² a cycle: a bidirectional block multiplies the SoftMax work by its rows.");
  }

  private NpuReport.Trend mechanism(BenchResults.Section s, String variant, String what, String how) {
    BenchResults.Table t = s.table("").orElseThrow();
    List<String> row = t.row(variant).orElseThrow(() -> new IllegalArgumentException("no row '" + variant + "'"));
    double small = BenchResults.Table.number(row.get(t.column("vs all", 0)));
    double large = BenchResults.Table.number(row.get(t.column("vs all", 1)));
    String verdict = small > 1.005 && large > 1.005 ? "agrees" : small > 1.005 || large > 1.005 ? "partly"
        : "disagrees";
    return trend(f("without %s the decode takes %.2f× (stories260K) and %.2f× (LLaMA-3-8B's shape) the time with "
        + "all mechanisms", what, small, large), verdict, how + "." + weights(s));
  }
}
