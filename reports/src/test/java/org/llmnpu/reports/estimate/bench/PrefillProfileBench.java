package org.llmnpu.reports.estimate.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.reports.estimate.EstimateTarget;
import org.llmnpu.reports.estimate.NpuEstimate;
import org.llmnpu.sw.estimate.ModelShapes;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.PhaseCostModel;
import org.llmnpu.sw.lower.WeightFormats;
import org.llmnpu.sw.model.ModelConfig;

/**
 * Where LLaMA-2-7B's 256-token prefill spends its cycles on {@code edge-64} ({@code ./npu estimate --model llama-2-7b
 * --preset edge-64 --prompt-len 256 --quant Q}, fusion full): {@link PhaseCostModel#profile} of the extrapolated step
 * by operator and by command kind, one layer costed (every layer has the same commands; the LM head and the
 * per-block setup are in their own rows). Benchmark: {@code mvn -q -o -pl reports -am test -Dbench
 * -Dtest=PrefillProfileBench -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class PrefillProfileBench {
  private static final int PROMPT = 256;

  @Test
  void llama2SevenBPrefillByOperator() {
    for (String npu : new String[] {" on edge-64 -p dspPermute=false (Kᵀ by pairs)", ""}) {
      for (String quant : new String[] {"int8", "s2_4"}) {
        prefillByOperator(quant, npu);
      }
    }
  }

  /** {@link #llama2SevenBPrefillByOperator} for one weight format on edge-64 ({@code npu} empty) or without permute. */
  private static void prefillByOperator(String quant, String npu) {
    List<String> notes = new ArrayList<>();
    EstimateTarget t = NpuEstimate.withUnitsFor(EstimateTarget.load("edge-64", null,
        npu.isEmpty() ? Map.of() : Map.of("dspPermute", "false")), quant, notes);
    MachineParams p = t.npu().machine();
    ModelConfig c = ModelShapes.of("llama-2-7b").config();
    PhaseCostModel cost = new PhaseCostModel(c, p, PROMPT + 1, Math.min(p.maxM(), PROMPT), true,
        WeightFormats.bits(quant), WeightFormats.group(quant), WeightFormats.sparsity(quant),
        WeightFormats.mx(quant), Fusion.FULL);
    Map<String, long[]> rows = cost.profile(PROMPT, 0, 1);
    Map<String, long[]> ops = byOperator(rows);
    print(quant + npu, rows, ops);
    summary(c, p, ops);
    System.out.printf(Locale.ROOT, "GEMM back-ends beside the controller (layer 0 plus LM head; "
        + "PhaseCostModel#besideWindowCycles, the most DSP work any command order could hide under these GEMMs, "
        + "whose W streams run beside the controller, which takes only dspin, dspout and resident dsprun during them): %,d cycles; of them the controller waited for the back-end "
        + "(what a software-pipelined order could still gain): %,d cycles%n", cost.besideWindowCycles(),
        cost.backEndWaitCycles());
    besideBound(rows, cost.besideWindowCycles(), ideal(c, p));
    System.out.println("| operator / command kind that waited | commands | waited | of its cycles |\n|---|---:|---:|---:|");
    rows.entrySet().stream().filter(e -> e.getValue()[2] > 0)
        .sorted((a, b) -> Long.compare(b.getValue()[2], a.getValue()[2])).limit(8)
        .forEach(e -> System.out.printf(Locale.ROOT, "| %s | %,d | %,d | %.3f |%n", e.getKey(), e.getValue()[1],
            e.getValue()[2], e.getValue()[2] / (double) e.getValue()[0]));
  }

  /**
   * The same prefill with the walk in the interleaver's order ({@code PhaseCostModel#interleave}, {@code WalkSchedule}):
   * one block at a time, then two blocks in flight layer by layer, then skewed (both blocks' QKV GEMMs first), against
   * today's order; by operator, and the layer's
   * cycles against its MACs ({@link #summary}). Opt-in in the estimate (sw-stack README, "The 7B walk in the
   * interleaver's order").
   */
  @Test
  void llama2SevenBTwoBlocksInFlightWalk() {
    for (String quant : new String[] {"int8", "s2_4"}) {
      EstimateTarget t = NpuEstimate.withUnitsFor(EstimateTarget.load("edge-64", null), quant, new ArrayList<>());
      MachineParams p = t.npu().machine();
      ModelConfig c = ModelShapes.of("llama-2-7b").config();
      for (int mode = 0; mode < 4; mode++) {
        PhaseCostModel cost = new PhaseCostModel(c, p, PROMPT + 1, Math.min(p.maxM(), PROMPT), true,
            WeightFormats.bits(quant), WeightFormats.group(quant), WeightFormats.sparsity(quant),
            WeightFormats.mx(quant), Fusion.FULL);
        if (mode > 0) {
          cost.interleave(true, mode >= 2).skewed(mode == 3);
        }
        Map<String, long[]> rows = cost.profile(PROMPT, 0, 1);
        Map<String, long[]> ops = byOperator(rows);
        System.out.printf(Locale.ROOT, "%n%s, %s: layer 0 plus setup and LM head %,d cycles, %,d commands%n", quant,
            new String[] {"program order", "interleaved, one block at a time", "interleaved, two blocks in flight",
                "interleaved, two blocks in flight skewed (DecoderLowering#skewed)"}[mode],
            rows.values().stream().mapToLong(v -> v[0]).sum(), rows.values().stream().mapToLong(v -> v[1]).sum());
        summary(c, p, ops);
      }
    }
  }

  /**
   * The decode step at position 256 of LLaMA-2-7B int4-g32 and int8 at 16 GB/s, by operator: where the INT4 GEMVs'
   * tails (the second N tile of each INT4 beat column running its passes after the column's last beat) show.
   */
  @Test
  void llama2SevenBDecodeAt16GbsByOperator() {
    for (String quant : new String[] {"int8", "int4-g32"}) {
      List<String> notes = new ArrayList<>();
      EstimateTarget t = NpuEstimate.withUnitsFor(EstimateTarget.load("edge-64", null).withBandwidthGbs(16), quant,
          notes);
      MachineParams p = t.npu().machine();
      ModelConfig c = ModelShapes.of("llama-2-7b").config();
      PhaseCostModel cost = new PhaseCostModel(c, p, PROMPT + 1, Math.min(p.maxM(), PROMPT), true,
          WeightFormats.bits(quant), WeightFormats.group(quant), WeightFormats.sparsity(quant),
          WeightFormats.mx(quant), Fusion.FULL);
      Map<String, long[]> rows = cost.profile(1, PROMPT, 1);
      long total = rows.values().stream().mapToLong(v -> v[0]).sum();
      System.out.printf(Locale.ROOT, "%n%s at 16 GB/s, decode step at 256, layer 0 of 32 plus setup and LM head: "
          + "%,d cycles%n| operator | commands | cycles | share |%n|---|---:|---:|---:|%n", quant, total);
      byOperator(rows).entrySet().stream().sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0]))
          .forEach(e -> System.out.printf(Locale.ROOT, "| %s | %,d | %,d | %.3f |%n", e.getKey(), e.getValue()[1],
              e.getValue()[0], e.getValue()[0] / (double) total));
    }
  }

  /**
   * The batched attention scores ({@code BatchedScores}) checked on the cycle model alone, LLaMA-2-7B INT8: per head
   * and 64-token block, the scores part of the attention (the queries into their GEMM operand, the scores GEMMs, each
   * query's scores into the DSP; the DSP runs between are the same in both) as commands on {@code npu-isa}'s cycle
   * model, the per-query GEMVs against one GEMM per head over the block's queries (the estimate of the whole step is in
   * {@link #llama2SevenBPrefillByOperator}'s "attention scores" row). The batched sequence: each
   * query's halves scattered one FP16 code a line ({@code dspout} rows of one element, as today's weight column),
   * gathered a head dimension at a time into the rows of {@code Qᵀ} ({@code dspin} of 64 one-element rows, a
   * {@code dspout} INT8 row); {@code Sᵀ = K·Qᵀ} in M chunks of maxM slots (K = head dim, N = the block's queries);
   * {@code Sᵀ} into the DSP and scattered an element a line; each query's scores gathered ({@code dspin} of s
   * one-element rows, as today's column read). Only existing commands with line-aligned addresses.
   */
  @Test
  void batchedScoresWhatIf() {
    EstimateTarget t = EstimateTarget.load("edge-64", null);
    MachineParams p = t.npu().machine();
    ModelConfig c = ModelShapes.of("llama-2-7b").config();
    int hd = c.headDim();
    int half = hd / 2;
    int n = Math.min(p.maxM(), PROMPT);
    long today = 0;
    long batched = 0;
    for (int pos = 0; pos < PROMPT; pos += n) {
      org.llmnpu.isa.CycleModel a = new org.llmnpu.isa.CycleModel(p);
      for (int q = 0; q < n; q++) {
        int s = pos + q + 1;
        copy(a, half, 1, 1, false);
        copy(a, half, 1, 1, false);
        for (int m0 = 0; m0 < s; m0 += p.maxM()) {
          gemm(a, Math.min(p.maxM(), s - m0), hd, 1);
        }
        copy(a, s, 1, 4, true);
      }
      org.llmnpu.isa.CycleModel b = new org.llmnpu.isa.CycleModel(p);
      int sMax = pos + n;
      for (int q = 0; q < n; q++) {
        copy(b, half, 1, 2, false);
        copy(b, half, 1, 2, false);
      }
      for (int k = 0; k < hd; k++) {
        copy(b, n, 1, 2, true);
        copy(b, 1, n, 1, false);
      }
      for (int m0 = 0; m0 < sMax; m0 += p.maxM()) {
        gemm(b, Math.min(p.maxM(), sMax - m0), hd, n);
      }
      copy(b, sMax, n, 4, true);
      copy(b, (long) sMax * n, 1, 2, false);
      for (int q = 0; q < n; q++) {
        copy(b, pos + q + 1, 1, 2, true);
      }
      today += a.now();
      batched += b.now();
    }
    long heads = c.heads();
    System.out.printf(Locale.ROOT, "LLaMA-2-7B int8 on edge-64, 256-token prefill, attention scores part of one "
        + "layer (%d heads x %d blocks):%n", heads, PROMPT / n);
    System.out.printf(Locale.ROOT, "| scores | cycles a layer |%n|---|---:|%n| per-query GEMVs | %,d |%n"
        + "| batched: one GEMM per head and block | %,d |%n| saved a layer | %,d |%n", heads * today,
        heads * batched, heads * (today - batched));
  }

  /**
   * What a K cache held transposed would save in the scores, checked on the cycle model alone (LLaMA-2-7B INT8, edge-64,
   * 256-token prefill, one layer): the walk's batched sequence ({@code AttentionWalk#scoresBatched}: each query's
   * halves scattered a code a line, {@code Qᵀ} gathered, {@code Sᵀ = K·Qᵀ} in M chunks, {@code Sᵀ} into the DSP and
   * scattered a score a line, each query's scores gathered) against {@code S = Q·Kᵀ}: one GEMM per head and block with
   * the block's queries as M (X = the Q rows, K = head dim, N = the block's slots) and each query's INT32 scores into
   * the DSP in one {@code dspin} row. Two ways of writing the block's columns of {@code Kᵀ}: as first estimated, each
   * token's K head as head-dim one-element rows straight at its column — not possible, since {@code dspout} (like
   * every scratchpad and memory address) needs a line-aligned address and column j of a row is byte j; and as the
   * hardware allows: each token's K head scattered one code a line (line {@code d·n + t} of a staging region), the
   * block's {@code head dim · n} one-element lines gathered in one {@code dspin} (flat {@code [d][t]}), written back as
   * head-dim rows of n codes at the block's first slot (line-aligned when the block starts on a line: blocks of maxM
   * = line slots here), and as {@code KeyScores} issues the scores: a query's evens and odds on rows of their own, two
   * accumulating GEMMs (K = half each). The query rows' {@code dspout} counts in both. The DSP
   * runs between are the same in all; not counted: the K cache's DRAM layout (loads of {@code Kᵀ} rows instead of K
   * rows, as many bytes). Decode, printed after: a step cannot write one column (a byte a row) either, so Kᵀ takes a
   * line group's columns once the group is full (the decode GEMVs keep the K rows), costed per layer and amortized per
   * token, against rewriting the group's line every step. Not built: the lowering and the walk emit the batched
   * sequence.
   */
  @Test
  void transposedKeyScoresWhatIf() {
    MachineParams p = EstimateTarget.load("edge-64", null).npu().machine();
    ModelConfig c = ModelShapes.of("llama-2-7b").config();
    int hd = c.headDim();
    int half = hd / 2;
    int n = Math.min(p.maxM(), PROMPT);
    long batched = 0;
    long transposed = 0;
    long aligned = 0;
    for (int pos = 0; pos < PROMPT; pos += n) {
      int sMax = pos + n;
      org.llmnpu.isa.CycleModel a = new org.llmnpu.isa.CycleModel(p);
      for (int q = 0; q < n; q++) {
        copy(a, half, 1, 2, false);
        copy(a, half, 1, 2, false);
      }
      copy(a, (long) half * n, 1, 2, true);
      copy(a, (long) half * n, 1, 2, true);
      copy(a, half, n, 1, false);
      copy(a, half, n, 1, false);
      for (int m0 = 0; m0 < sMax; m0 += p.maxM()) {
        int mm = Math.min(p.maxM(), sMax - m0);
        gemm(a, mm, hd, n);
        copy(a, mm, n, 4, true);
        copy(a, (long) mm * n, 1, 2, false);
      }
      for (int q = 0; q < n; q++) {
        copy(a, pos + q + 1, 1, 2, true);
      }
      org.llmnpu.isa.CycleModel b = new org.llmnpu.isa.CycleModel(p);
      org.llmnpu.isa.CycleModel d = new org.llmnpu.isa.CycleModel(p);
      for (int q = 0; q < n; q++) {
        copy(b, hd, 1, 1, false);
        copy(d, hd, 1, 1, false);
        copy(b, 1, hd, 1, false);
        copy(d, 1, half, 1, false);
        copy(d, 1, half, 1, false);
      }
      copy(d, (long) hd * n, 1, 1, true);
      copy(d, hd, n, 1, false);
      for (int n0 = 0; n0 < sMax; n0 += p.maxN()) {
        gemm(b, n, hd, Math.min(p.maxN(), sMax - n0));
        gemm(d, n, half, Math.min(p.maxN(), sMax - n0));
        gemm(d, n, half, Math.min(p.maxN(), sMax - n0));
      }
      for (int q = 0; q < n; q++) {
        copy(b, 1, pos + q + 1, 4, true);
        copy(d, 1, pos + q + 1, 4, true);
      }
      batched += a.now();
      transposed += b.now();
      aligned += d.now();
    }
    long heads = c.heads();
    System.out.printf(Locale.ROOT, "LLaMA-2-7B int8 on edge-64, 256-token prefill, attention scores part of one "
        + "layer (%d heads x %d blocks):%n", heads, PROMPT / n);
    System.out.printf(Locale.ROOT, "| scores | cycles a layer | saved a layer |%n|---|---:|---:|%n"
        + "| batched: Sᵀ = K·Qᵀ (today) | %,d | |%n"
        + "| K cache transposed: S = Q·Kᵀ, columns written byte-addressed (not possible: line-aligned addresses) "
        + "| %,d | %,d |%n"
        + "| K cache transposed: S = Q·Kᵀ, Kᵀ's block columns through one-element lines (line-aligned), evens and odds "
        + "as two accumulating GEMMs (KeyColumns, KeyScores) | %,d | %,d |%n",
        heads * batched, heads * transposed, heads * (batched - transposed), heads * aligned,
        heads * (batched - aligned));
    // decode: Kᵀ's columns can only be written a whole line of slots at a time, so a decode step keeps scoring
    // over the K rows (today's GEMVs) and Kᵀ takes a line group's columns once the group is full: its line tokens'
    // K rows into the DSP (INT8) and scattered a code a line, gathered, written as kvDim rows of line codes
    int line = p.lineBytes();
    int kvDim = c.kvDim();
    org.llmnpu.isa.CycleModel g = new org.llmnpu.isa.CycleModel(p);
    for (int t = 0; t < line; t++) {
      copy(g, 1, kvDim, 1, true);
      copy(g, kvDim, 1, 1, false);
    }
    copy(g, (long) kvDim * line, 1, 1, true);
    copy(g, kvDim, line, 1, false);
    int eager = Math.max(1, line / 2);
    org.llmnpu.isa.CycleModel w = new org.llmnpu.isa.CycleModel(p);
    for (int t = 0; t < eager; t++) {
      copy(w, 1, kvDim, 1, true);
      copy(w, kvDim, 1, 1, false);
    }
    copy(w, kvDim, 1, 1, false);
    copy(w, (long) kvDim * line, 1, 1, true);
    copy(w, kvDim, line, 1, false);
    System.out.printf(Locale.ROOT, "decode, Kᵀ's columns a line (%d slots) at a time, a layer: once a line group is "
        + "full %,d cycles (%,d a token amortized, %,d a token for all %d layers); written every step instead (the "
        + "group's %d earlier tokens on average re-scattered) %,d a token a layer%n", line, g.now(), g.now() / line,
        g.now() / line * c.layers(), c.layers(), eager, w.now());
  }

  private static void copy(org.llmnpu.isa.CycleModel m, long rows, long elems, int bytes, boolean in) {
    m.fetchAndDecode();
    m.dispatch(false, false);
    m.dspCopy(rows, elems, bytes, in);
  }

  private static void gemm(org.llmnpu.isa.CycleModel m, int rows, int k, int n) {
    m.fetchAndDecode();
    m.dispatch(false, false);
    m.gemm(rows, k, n);
  }

  /**
   * One layer's cycles (the rows but setup and LM head) against its MACs at the array's rate, split into the block
   * GEMMs (weights streamed) and the rest.
   */
  /** A layer's block GEMMs' cycles at one MAC a PE a cycle. */
  static long ideal(ModelConfig c, MachineParams p) {
    long qkvN = c.dim() + 2L * c.kvDim();
    long blockMacs = (long) PROMPT * ((long) c.dim() * qkvN + (long) c.dim() * c.dim() + 3L * c.dim() * c.hiddenDim());
    return blockMacs / ((long) p.rows() * p.rows());
  }

  static void summary(ModelConfig c, MachineParams p, Map<String, long[]> ops) {
    long layer = 0;
    long gemms = 0;
    for (Map.Entry<String, long[]> e : ops.entrySet()) {
      if (e.getKey().equals("setup") || e.getKey().equals("lm head")) {
        continue;
      }
      layer += e.getValue()[0];
      if (e.getKey().endsWith(" GEMM")) {
        gemms += e.getValue()[0];
      }
    }
    long ideal = ideal(c, p);
    System.out.printf(Locale.ROOT, "one layer: %,d cycles; its block GEMMs' MACs at %d a cycle %,d (%.3f of the "
        + "layer); GEMM rows (QKV, O, W1/W3, W2, P·V) %,d (%.3f of the layer, MACs/GEMM cycles %.3f); the rest %,d%n",
        layer, p.rows() * p.rows(), ideal, ideal / (double) layer, gemms, gemms / (double) layer,
        ideal / (double) gemms, layer - gemms);
  }

  /**
   * What any command order could hide beside the GEMMs of the profiled step, given enough independent DSP work (within
   * one token block every DSP command after a GEMM reads whole result rows, so it depends on the last N tile; the
   * independent work is another block's): at most the window, and at most the step's DSP copies (what goes beside a
   * W stream today) or its copies and runs (once every run is resident). Prints the step's floor in both cases and
   * the layer's MAC utilization if the layer's share of the window were filled alike.
   */
  private static void besideBound(Map<String, long[]> rows, long window, long ideal) {
    long total = 0;
    long copies = 0;
    long runs = 0;
    long layer = 0;
    for (Map.Entry<String, long[]> e : rows.entrySet()) {
      long cycles = e.getValue()[0];
      total += cycles;
      String key = e.getKey();
      if (!key.startsWith("setup /") && !key.startsWith("lm head /")) {
        layer += cycles;
      }
      if (key.endsWith("/ dspin") || key.endsWith("/ dspout")) {
        copies += cycles;
      } else if (key.endsWith("/ dsprun")) {
        runs += cycles;
      }
    }
    long hideCopies = Math.min(window, copies);
    long hideAll = Math.min(window, copies + runs);
    System.out.printf(Locale.ROOT, "beside the GEMMs with another block's work ready (the step's DSP copies %,d, "
        + "runs %,d cycles): the step ≥ %,d cycles with the copies beside (%.3f of it), ≥ %,d with the copies and "
        + "resident runs (%.3f); the layer's MAC utilization then ≤ %.3f and ≤ %.3f (the window and the work scaled "
        + "by the layer's share of the step)%n", copies, runs, total - hideCopies, (total - hideCopies) / (double) total,
        total - hideAll, (total - hideAll) / (double) total,
        ideal / (layer - hideCopies * (double) layer / total), ideal / (layer - hideAll * (double) layer / total));
  }

  static Map<String, long[]> byOperator(Map<String, long[]> rows) {
    Map<String, long[]> ops = new TreeMap<>();
    rows.forEach((k, v) -> {
      long[] o = ops.computeIfAbsent(k.substring(0, k.indexOf(" / ")), x -> new long[2]);
      o[0] += v[0];
      o[1] += v[1];
    });
    return ops;
  }

  static void print(String quant, Map<String, long[]> rows, Map<String, long[]> ops) {
    long total = rows.values().stream().mapToLong(v -> v[0]).sum();
    System.out.printf(Locale.ROOT, "%n%s, 256-token prefill, layer 0 of 32 plus setup and LM head: %,d cycles%n",
        quant, total);
    System.out.println("| operator | commands | cycles | share |\n|---|---:|---:|---:|");
    ops.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0])).forEach(e ->
        System.out.printf(Locale.ROOT, "| %s | %,d | %,d | %.3f |%n", e.getKey(), e.getValue()[1], e.getValue()[0],
            e.getValue()[0] / (double) total));
    System.out.println("| operator / command kind | commands | cycles | share |\n|---|---:|---:|---:|");
    rows.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0])).forEach(e ->
        System.out.printf(Locale.ROOT, "| %s | %,d | %,d | %.3f |%n", e.getKey(), e.getValue()[1], e.getValue()[0],
            e.getValue()[0] / (double) total));
  }
}
