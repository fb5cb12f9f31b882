package org.llmnpu.cosim.report;

import static org.llmnpu.cosim.report.SeedTrends.SW_BENCH;
import static org.llmnpu.cosim.report.SeedTrends.pct;

import java.util.List;
import java.util.Locale;
import org.llmnpu.reports.npu.NpuReport;

/**
 * The seed-trend rows and figures read from recorded benchmark results ({@code bench-results/<Bench>.txt}):
 * the N:M and MXFP8 accuracy rows, and the sw-stack latency model's fusion and INT4 figures quoted by the
 * fusion and INT4 rows. A missing table or figure gives "not measured" with the reason.
 */
final class RecordedTrends {
  private final BenchResults bench;

  RecordedTrends(BenchResults bench) {
    this.bench = bench;
  }

  static NpuReport.Trend notMeasured(String finding, String seed, String why) {
    return new NpuReport.Trend(finding, seed, "", "not measured", why, "—");
  }

  /** A figure of a recorded table, or a row saying the table or the figure is missing. */
  private interface FromBench {
    NpuReport.Trend row(BenchResults.Section s);
  }

  private NpuReport.Trend recorded(String finding, String seed, String benchName, String method, FromBench row) {
    java.util.Optional<BenchResults.Section> s = bench.section(benchName, method);
    if (s.isEmpty()) {
      return notMeasured(finding, seed, bench.missing(benchName, method));
    }
    try {
      return row.row(s.get());
    } catch (IllegalArgumentException | java.util.NoSuchElementException e) {
      return notMeasured(finding, seed, s.get().citation() + " does not hold the figures this row reads: "
          + e.getMessage());
    }
  }

  /** The sw-stack latency model's fused vs unfused prefill (tiny, medium), from its recorded benchmark. */
  String swFusion() {
    java.util.Optional<BenchResults.Section> s = bench.section(SW_BENCH, "fusionAndTiling");
    if (s.isEmpty()) {
      return "sw-stack latency model: not measured (" + bench.missing(SW_BENCH, "fusionAndTiling") + ")";
    }
    try {
      StringBuilder out = new StringBuilder("sw-stack latency model (graph fusion, " + s.get().citation() + "):");
      for (String size : List.of("tiny", "medium")) {
        BenchResults.Table t = s.get().table("### " + size).orElseThrow();
        int ms = t.column("estimated ms", 0);
        double gain = BenchResults.Table.number(prefillRow(t, "fused").get(ms))
            / BenchResults.Table.number(prefillRow(t, "unfused").get(ms)) - 1;
        out.append(String.format(Locale.ROOT, "%s %s (%s)", size.equals("tiny") ? "" : ",",
            pct(gain).replace(" ", ""), size));
      }
      return out.toString();
    } catch (IllegalArgumentException | java.util.NoSuchElementException e) {
      return "sw-stack latency model: not measured (" + s.get().citation() + " does not hold its fusion tables)";
    }
  }

  private static List<String> prefillRow(BenchResults.Table t, String stage) {
    return t.rows().stream().filter(r -> r.get(0).startsWith("prefill") && r.get(1).startsWith(stage)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no prefill row of stage '" + stage + "'"));
  }

  private static final String WEIGHTS_TABLE = "#### stories260K";

  /** A row read from the stories260K table of the sw-stack bench's weight-compression section. */
  private NpuReport.Trend weightsRow(String finding, String seed,
                                     java.util.function.BiFunction<BenchResults.Section, BenchResults.Table,
                                         NpuReport.Trend> row) {
    return recorded(finding, seed, SW_BENCH, "realModelWeightCompression",
        s -> row.apply(s, s.table(WEIGHTS_TABLE).orElseThrow()));
  }

  NpuReport.Trend nmAccuracy() {
    String finding = "N:M sparsity accuracy: 4:8 more accurate than 2:4";
    String seed = "4:8 consistently better (LLaMA3-8B, Qwen2.5-3B)";
    return weightsRow(finding, seed, (s, t) -> {
      int kl = t.column("KL vs FP32", 0);
      StringBuilder ours = new StringBuilder("stories260K KL vs FP32 (4:8 vs 2:4):");
      int better = 0;
      int compared = 0;
      for (String[] method : new String[][] {{"magnitude", ""}, {"Wanda", "@wanda"}, {"SparseGPT", "@sparsegpt"}}) {
        java.util.Optional<List<String>> r48 = t.row("4:8" + method[1]);
        java.util.Optional<List<String>> r24 = t.row("2:4" + method[1]);
        if (r48.isEmpty() || r24.isEmpty()) {
          continue;
        }
        double a = BenchResults.Table.number(r48.get().get(kl));
        double b = BenchResults.Table.number(r24.get().get(kl));
        compared++;
        better += a < b ? 1 : 0;
        ours.append(String.format(Locale.ROOT, "%s %s %s vs %s", compared == 1 ? "" : ",", method[0],
            r48.get().get(kl), r24.get().get(kl)));
      }
      if (compared == 0) {
        throw new IllegalArgumentException("no 2:4 and 4:8 rows");
      }
      String verdict = better == compared ? "agrees" : better == 0 ? "disagrees" : "partly";
      return new NpuReport.Trend(finding, seed, ours.toString(), verdict, String.format(Locale.ROOT, "4:8 has the "
          + "lower KL for %d of %d pruning methods. No 50 %% pruning is usable on a 260K-parameter model without "
          + "fine-tuning, so the comparison is between two large errors.", better, compared), s.citation());
    });
  }

  NpuReport.Trend mxfp8() {
    String finding = "MXFP8 about as accurate as INT8";
    String seed = "MXFP8 ≈ 1.3 % above INT8 (LLaMA3-8B)";
    return weightsRow(finding, seed, (s, t) -> {
      int ppl = t.column("perplexity", 0);
      int kl = t.column("KL vs FP32", 0);
      List<String> mx = t.row("mxfp8").orElseThrow();
      List<String> int8 = t.row("int8").orElseThrow();
      double above = BenchResults.Table.number(mx.get(ppl)) / BenchResults.Table.number(int8.get(ppl)) - 1;
      String mxint8 = t.row("mxint8").map(r -> " (MXINT8 " + r.get(kl) + ")").orElse("");
      boolean agrees = above <= 0.05;
      return new NpuReport.Trend(finding, seed, String.format(Locale.ROOT, "stories260K perplexity: MXFP8 %s vs "
          + "per-channel INT8 %s (%s); KL vs FP32 %s vs %s%s", mx.get(ppl), int8.get(ppl), pct(above), mx.get(kl),
          int8.get(kl), mxint8), agrees ? "agrees" : "disagrees", agrees ? "Within 5 % of INT8's perplexity, as in "
          + "the seed." : "E4M3 elements with a power-of-two block scale lose far more than per-channel INT8 on this "
          + "small model (the verdict allows 5 % above INT8's perplexity).", s.citation());
    });
  }

  /** INT4 against INT8 in sw-stack's latency model (the medium model), from the recorded benchmark. */
  String swInt4() {
    java.util.Optional<BenchResults.Section> s = bench.section(SW_BENCH, "fusionAndTiling");
    if (s.isEmpty()) {
      return "sw-stack latency model: not measured (" + bench.missing(SW_BENCH, "fusionAndTiling") + ")";
    }
    try {
      BenchResults.Table t = s.get().table("#### medium: weight formats").orElseThrow();
      List<String> int4 = t.row("INT4").orElseThrow();
      return "sw-stack latency model (medium, fused graph): prefill " + int4.get(t.column("vs INT8", 0))
          + ", decode " + int4.get(t.column("vs INT8", 1));
    } catch (IllegalArgumentException | java.util.NoSuchElementException e) {
      return "sw-stack latency model: not measured (" + s.get().citation() + " has no INT4 row in its medium weight "
          + "formats table)";
    }
  }
}
