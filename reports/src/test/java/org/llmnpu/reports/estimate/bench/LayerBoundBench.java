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
import org.llmnpu.sw.lower.PrefillOrder;
import org.llmnpu.sw.lower.WeightFormats;
import org.llmnpu.sw.model.ModelConfig;

/**
 * What bounds a steady layer of LLaMA-2-7B's 256-token prefill on {@code edge-64} as shipped ({@code --fusion full},
 * two token blocks of 128 in flight, staggered by half a layer in windows across layers with the gated W1/W3 and W2
 * GEMMs woven into the other block's attention: the estimate's order, {@link PrefillOrder.Weave#GATED}) for int8 and
 * 2:4, and with {@code -p xKeep=false}: {@link PhaseCostModel#layerProfile} (3 layers' walk minus 2's). The NPU has
 * two timelines: the controller (every command, the DSP's copies and runs too: a {@code dsprun} holds it) and the GEMM
 * back-end (the engine's passes, a streamed GEMM's W stream and X copy, the drain). A layer's cycles T = back-end busy
 * B + back-end idle I; the controller waits W of B for the back-end and works B − W beside it. So I is the
 * controller's work on the critical path (the rows printed by it), W the back-end's. B split: the engine's passes
 * (executed MACs at rows² a cycle), the rest of the engine's run (passes waiting for W beats or X lines, pipeline
 * fill), and the drain with what else the back-end counts ({@code gemmCycles − arrayCycles}). The NPU comes from
 * {@code npu estimate}'s loader, a what-if as its {@code -p}. Benchmark: {@code mvn -q -o -pl reports -am test
 * -Dbench -Dtest=LayerBoundBench -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class LayerBoundBench {
  private static final int PROMPT = 256;

  /** The prefill orders compared: two blocks in flight in windows across layers. */
  enum Order {
    SKEWED("skewed", new PrefillOrder(true, true, true, false, true, PrefillOrder.Weave.NONE)),
    STAGGERED("staggered", new PrefillOrder(true, true, false, true, true, PrefillOrder.Weave.NONE)),
    WOVEN("woven GATED", new PrefillOrder(true, true, false, true, true, PrefillOrder.Weave.GATED));

    final String label;
    final PrefillOrder order;

    Order(String label, PrefillOrder order) {
      this.label = label;
      this.order = order;
    }
  }

  @Test
  void llama2SevenBSteadyLayerBound() {
    Assumptions.assumeTrue(BenchRecord.enabled(), "benchmark: run with -Dbench");
    System.out.println(HEADER);
    StringBuilder detail = new StringBuilder();
    long[] int8 = new long[2];
    for (String quant : new String[] {"int8", "s2_4"}) {
      for (boolean keep : new boolean[] {false, true}) {
        long[] bound = layer(quant, keep ? Map.of() : Map.of("xKeep", "false"), keep ? detail : null, Order.WOVEN);
        if (quant.equals("int8") && keep) {
          int8 = bound;
        } else if (keep) {
          System.out.printf(Locale.ROOT, "s2_4 against int8 (as shipped): layer %.4fx; with every controller command "
              + "beside the back-end (max(B, T − W) each) %.4fx%n", bound[0] / (double) int8[0],
              bound[1] / (double) int8[1]);
        }
      }
    }
    // what-if: a deeper command queue (the fetcher reads no command while a W stream holds the memory port)
    layer("s2_4", Map.of("commandQueueDepth", "16"), null, Order.WOVEN);
    // what-if: twice the program memory
    layer("int8", Map.of("dspProgramDepth", "1024"), null, Order.WOVEN);
    layer("s2_4", Map.of("dspProgramDepth", "1024"), null, Order.WOVEN);
    System.out.print(detail);
  }

  /**
   * The three orders of two blocks in flight across layers on edge-64 as shipped, int8 and 2:4: skewed (both blocks'
   * QKV GEMMs first), staggered ({@code PhaseCostModel#staggered}: each block's RMSNorm and QKV GEMM between the other's
   * O GEMM and feed-forward) and staggered with the gated feed-forward woven into the other block's attention (the
   * estimate's); the 2:4 layer against int8's in each order; a what-if in each: twice the program memory. (Since the
   * DSPIN-beside-a-reading-drain rule, {@code CycleModel#drainReadsY}, the DSP copies go beside a gated GEMM clear of
   * its Y rows on the NPU itself, so the walk's former what-if of that rule is the plain row.)
   */
  @Test
  void llama2SevenBStaggeredLayer() {
    Assumptions.assumeTrue(BenchRecord.enabled(), "benchmark: run with -Dbench");
    System.out.println(HEADER);
    Order[] orders = Order.values();
    long[][] t = new long[orders.length][2];
    long[][] d = new long[orders.length][2];
    for (Order o : orders) {
      t[o.ordinal()][0] = layer("int8", Map.of(), null, o)[0];
      t[o.ordinal()][1] = layer("s2_4", Map.of(), null, o)[0];
    }
    // what-if: twice the program memory, every order (the residual/FFN RMSNorm programs stay resident)
    Map<String, String> deep = Map.of("dspProgramDepth", "1024");
    for (Order o : orders) {
      d[o.ordinal()][0] = layer("int8", deep, null, o)[0];
      d[o.ordinal()][1] = layer("s2_4", deep, null, o)[0];
    }
    System.out.println("\n| order | int8 layer T | s2_4 layer T | s2_4 / int8 | against skewed: int8 | s2_4 "
        + "| dspProgramDepth=1024: s2_4 / int8 |\n|---|---:|---:|---:|---:|---:|---:|");
    for (Order o : orders) {
      long[] r = t[o.ordinal()];
      System.out.printf(Locale.ROOT, "| %s | %,d | %,d | %.4fx | %.4fx | %.4fx | %.4fx |%n", o.label, r[0], r[1],
          r[1] / (double) r[0], r[0] / (double) t[0][0], r[1] / (double) t[0][1],
          d[o.ordinal()][1] / (double) d[o.ordinal()][0]);
    }
  }

  private static final String HEADER = "| quant | NPU | layer T | back-end busy B | passes | engine waits, fill "
      + "| drain etc. | controller waits W | back-end idle I | controller busy T − W | of it fetch | max(B, T − W) |\n"
      + "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|";

  /**
   * Prints the layer's row in {@code order} on edge-64 with {@code params} over it (and, with {@code detail}, its
   * commands by operator / kind); returns {T, max(B, T − W)}.
   */
  private static long[] layer(String quant, Map<String, String> params, StringBuilder detail, Order order) {
    ModelConfig c = ModelShapes.of("llama-2-7b").config();
    MachineParams p = NpuEstimate.withUnitsFor(EstimateTarget.load("edge-64", null, params), quant,
        new ArrayList<>()).npu().machine();
    PhaseCostModel.LayerProfile layer = new PhaseCostModel(c, p, PROMPT + 1, Math.min(p.maxM(), PROMPT), true,
        WeightFormats.bits(quant), WeightFormats.group(quant), WeightFormats.sparsity(quant),
        WeightFormats.mx(quant), Fusion.FULL).order(order.order).layerProfile(PROMPT, 0);
    PhaseCost cost = layer.cost();
    long t = cost.cycles();
    long waits = column(layer.rows(), 2);
    long idle = column(layer.rows(), 3);
    long passes = cost.counter(Counter.MACS) / ((long) p.rows() * p.rows());
    long array = cost.arrayCycles();
    String npu = "edge-64" + (params.isEmpty() ? "" : " -p " + new java.util.TreeMap<>(params).toString()
        .replaceAll("[{}]", "").replace(", ", " -p ")) + ", " + order.label;
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
