package org.llmnpu.reports.estimate.bench;

import java.util.ArrayList;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.reports.estimate.EstimateTarget;
import org.llmnpu.reports.estimate.NpuEstimate;
import org.llmnpu.sw.estimate.ModelShapes;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.PhaseCost;
import org.llmnpu.sw.lower.PhaseCostModel;
import org.llmnpu.sw.lower.WeightFormats;
import org.llmnpu.sw.model.ModelConfig;

/**
 * What bounds a steady layer of LLaMA-2-7B's 256-token prefill on {@code edge-64} ({@code --fusion full}, two token
 * blocks of 128 in flight, skewed, in windows across layers: the estimate's order) for int8 and 2:4, with and without
 * {@code -p xKeep=true}: {@link PhaseCostModel#layerProfile} (3 layers' walk minus 2's). The NPU has two timelines:
 * the controller (every command, the DSP's copies and runs too: a {@code dsprun} holds it) and the GEMM back-end (the
 * engine's passes, a streamed GEMM's W stream and X copy, the drain). A layer's cycles T = back-end busy B + back-end
 * idle I; the controller waits W of B for the back-end and works B − W beside it. So I is the controller's work on the
 * critical path (the rows printed by it), W the back-end's. B split: the engine's passes (executed MACs at
 * rows² a cycle), the rest of the engine's run (passes waiting for W beats or X lines, pipeline fill), and
 * the drain with what else the back-end counts ({@code gemmCycles − arrayCycles}). Benchmark: {@code mvn -q -o -pl
 * reports -am test -Dbench -Dtest=LayerBoundBench -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class LayerBoundBench {
  private static final int PROMPT = 256;

  @Test
  void llama2SevenBSteadyLayerBound() {
    Assumptions.assumeTrue(BenchRecord.enabled(), "benchmark: run with -Dbench");
    System.out.println("| quant | NPU | layer T | back-end busy B | passes | engine waits, fill | drain etc. "
        + "| controller waits W | back-end idle I | controller busy T − W | of it fetch | max(B, T − W) |\n"
        + "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    StringBuilder detail = new StringBuilder();
    long[] int8 = new long[2];
    for (String quant : new String[] {"int8", "s2_4"}) {
      for (boolean keep : new boolean[] {false, true}) {
        long[] bound = layer(quant, Map.of("xKeep", Boolean.toString(keep)), detail);
        if (quant.equals("int8") && keep) {
          int8 = bound;
        } else if (keep) {
          System.out.printf(Locale.ROOT, "s2_4 against int8 (xKeep): layer %.3fx; with every controller command beside "
              + "the back-end (max(B, T − W) each) %.3fx%n", bound[0] / (double) int8[0], bound[1] / (double) int8[1]);
        }
      }
    }
    // what-if: a deeper command queue (the fetcher reads no command while a W stream holds the memory port)
    layer("s2_4", Map.of("xKeep", "true", "commandQueueDepth", "16"), null);
    // what-if: twice the program memory (the RMSNorm pairs and their quantizations fit: 586 words)
    layer("int8", Map.of("xKeep", "true", "dspProgramDepth", "1024"), null);
    layer("s2_4", Map.of("xKeep", "true", "dspProgramDepth", "1024"), null);
    System.out.print(detail);
  }

  /**
   * The staggered order ({@code PhaseCostModel#staggered}: each block's RMSNorm and QKV GEMM between the other's O GEMM
   * and feed-forward) against the skewed one, int8 and 2:4 with {@code -p xKeep=true}: the layer's rows and the 2:4
   * layer against int8's in each order; a what-if in both orders: twice the program memory. (Since the DSPIN-beside-a-
   * reading-drain rule, {@code CycleModel#drainReadsY}, the DSP copies go beside a gated GEMM clear of its Y rows on the
   * NPU itself, so the walk's former what-if of that rule is the plain row.)
   */
  @Test
  void llama2SevenBStaggeredLayer() {
    Assumptions.assumeTrue(BenchRecord.enabled(), "benchmark: run with -Dbench");
    System.out.println("| quant | NPU | layer T | back-end busy B | passes | engine waits, fill | drain etc. "
        + "| controller waits W | back-end idle I | controller busy T − W | of it fetch | max(B, T − W) |\n"
        + "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    StringBuilder detail = new StringBuilder();
    Map<String, String> keep = Map.of("xKeep", "true");
    long[][] t = new long[2][2];
    for (int order = 0; order < 2; order++) {
      t[order][0] = layer("int8", keep, null, order == 1)[0];
      t[order][1] = layer("s2_4", keep, order == 1 ? detail : null, order == 1)[0];
    }
    System.out.printf(Locale.ROOT, "s2_4 against int8 (xKeep), layer T: skewed %.4fx, staggered %.4fx; staggered against "
        + "skewed: int8 %.4fx, s2_4 %.4fx%n", t[0][1] / (double) t[0][0], t[1][1] / (double) t[1][0],
        t[1][0] / (double) t[0][0], t[1][1] / (double) t[0][1]);
    // what-if: twice the program memory, both orders (the residual/FFN RMSNorm programs stay resident)
    Map<String, String> deep = Map.of("xKeep", "true", "dspProgramDepth", "1024");
    long[][] d = new long[2][2];
    for (int order = 0; order < 2; order++) {
      d[order][0] = layer("int8", deep, null, order == 1)[0];
      d[order][1] = layer("s2_4", deep, null, order == 1)[0];
    }
    System.out.printf(Locale.ROOT, "dspProgramDepth=1024: s2_4 against int8, layer T: skewed %.4fx, staggered %.4fx%n",
        d[0][1] / (double) d[0][0], d[1][1] / (double) d[1][0]);
    System.out.print(detail);
  }

  private static long[] layer(String quant, Map<String, String> params, StringBuilder detail) {
    return layer(quant, params, detail, false);
  }

  /**
   * Prints the layer's row (and, with {@code detail}, its commands by operator / kind); returns {T, max(B, T − W)};
   * {@code staggered}: the blocks staggered ({@code PhaseCostModel#staggered}) instead of skewed.
   */
  private static long[] layer(String quant, Map<String, String> params, StringBuilder detail, boolean staggered) {
    ModelConfig c = ModelShapes.of("llama-2-7b").config();
    MachineParams p = NpuEstimate.withUnitsFor(EstimateTarget.load("edge-64", null, params), quant,
        new ArrayList<>()).npu().machine();
    PhaseCostModel.LayerProfile layer = new PhaseCostModel(c, p, PROMPT + 1, Math.min(p.maxM(), PROMPT), true,
        WeightFormats.bits(quant), WeightFormats.group(quant), WeightFormats.sparsity(quant),
        WeightFormats.mx(quant), Fusion.FULL).interleave(true, true).skewed(!staggered).staggered(staggered)
        .acrossLayers(true).layerProfile(PROMPT, 0);
    PhaseCost cost = layer.cost();
    long t = cost.cycles();
    long waits = column(layer.rows(), 2);
    long idle = column(layer.rows(), 3);
    long passes = cost.counter(Counter.MACS) / ((long) p.rows() * p.rows());
    long array = cost.arrayCycles();
    String npu = "edge-64 " + new java.util.TreeMap<>(params).toString().replaceAll("[{}]", "")
        + (staggered ? ", staggered" : "");
    long bound = Math.max(t - idle, t - waits);
    System.out.printf(Locale.ROOT, "| %s | %s | %,d | %,d | %,d | %,d | %,d | %,d | %,d | %,d | %,d | %,d |%n", quant,
        npu, t, t - idle, passes, array - passes, cost.gemmCycles() - array, waits, idle, t - waits,
        cost.counter(Counter.FETCH_CYCLES), bound);
    if (detail != null) {
      detail.append(String.format(Locale.ROOT, "%n%s, %s: the layer's commands by operator / kind (controller cycles "
          + "charged, of them waiting for the back-end, and run with the back-end idle)%n"
          + "| operator / kind | commands | cycles | waited | back-end idle |%n|---|---:|---:|---:|---:|%n", quant, npu));
      layer.rows().entrySet().stream().filter(e -> e.getValue()[0] != 0)
          .sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0]))
          .forEach(e -> detail.append(String.format(Locale.ROOT, "| %s | %,d | %,d | %,d | %,d |%n", e.getKey(),
              e.getValue()[1], e.getValue()[0], e.getValue()[2], e.getValue()[3])));
    }
    return new long[] {t, bound};
  }

  private static long column(Map<String, long[]> rows, int j) {
    return rows.values().stream().mapToLong(v -> v[j]).sum();
  }
}
