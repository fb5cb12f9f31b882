package org.llmnpu.reports.estimate.bench;

import java.util.ArrayList;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.reports.estimate.EstimateTarget;
import org.llmnpu.reports.estimate.NpuEstimate;
import org.llmnpu.sw.estimate.ModelShapes;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.PhaseCostModel;
import org.llmnpu.sw.lower.PrefillOrder;
import org.llmnpu.sw.lower.WeightFormats;
import org.llmnpu.sw.model.ModelConfig;

/**
 * A steady layer of LLaMA-2-7B's 256-token prefill on {@code edge-64 -p xKeep=true} ({@code --fusion full}, two token
 * blocks of 128 in flight staggered by half a layer, in windows across layers; {@link PhaseCostModel#layerProfile}):
 * the staggered order against the same with another block's GEMM stream woven into a block's attention
 * ({@link PrefillOrder.Weave}: the second block's QKV GEMM into the first's, or the first block's gated W1/W3 GEMMs into
 * the second's, with W2's tiles, the residual and RMSNorm pairs and the W2 residuals pinned), int8 and 2:4, the 2:4
 * layer against int8's. Per row: the layer's cycles T, the back-end's idle cycles I, of them the attention's SoftMax
 * runs'. Benchmark: {@code mvn -q -o -pl reports -am test -Dbench
 * -Dtest=WovenLayerBench -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class WovenLayerBench {
  private static final int PROMPT = 256;

  @Test
  void llama2SevenBWovenLayer() {
    Assumptions.assumeTrue(BenchRecord.enabled(), "benchmark: run with -Dbench");
    StringBuilder detail = new StringBuilder();
    System.out.println("| quant | order | layer T | back-end idle I | of it SoftMax runs |\n|---|---|---:|---:|---:|");
    PrefillOrder.Weave[] weaves = PrefillOrder.Weave.values();
    long[][] t = new long[weaves.length][2];
    for (int w = 0; w < weaves.length; w++) {
      t[w][0] = layer("int8", weaves[w]);
      t[w][1] = layer("s2_4", weaves[w]);
      detail.append(rows);
    }
    for (int w = 0; w < weaves.length; w++) {
      System.out.printf(Locale.ROOT, "weave %s: s2_4 against int8 (xKeep), layer T %.4fx; against staggered: int8 "
          + "%.4fx, s2_4 %.4fx%n", weaves[w], t[w][1] / (double) t[w][0], t[w][0] / (double) t[0][0],
          t[w][1] / (double) t[0][1]);
    }
    System.out.print(detail);
  }

  /** The last s2_4 layer's commands by operator / kind with the back-end idle, the ten largest. */
  private static String rows = "";

  private static long layer(String quant, PrefillOrder.Weave weave) {
    ModelConfig c = ModelShapes.of("llama-2-7b").config();
    MachineParams p = NpuEstimate.withUnitsFor(EstimateTarget.load("edge-64", null, Map.of("xKeep", "true")), quant,
        new ArrayList<>()).npu().machine();
    PhaseCostModel.LayerProfile layer = new PhaseCostModel(c, p, PROMPT + 1, Math.min(p.maxM(), PROMPT), true,
        WeightFormats.bits(quant), WeightFormats.group(quant), WeightFormats.sparsity(quant),
        WeightFormats.mx(quant), Fusion.FULL).order(new PrefillOrder(true, true, false, true, true, weave))
        .layerProfile(PROMPT, 0);
    long t = layer.cost().cycles();
    long idle = layer.rows().values().stream().mapToLong(v -> v[3]).sum();
    long softmax = layer.rows().entrySet().stream().filter(e -> e.getKey().contains("SoftMax"))
        .mapToLong(e -> e.getValue()[3]).sum();
    StringBuilder top = new StringBuilder(String.format(Locale.ROOT, "%n%s staggered%s: the layer's commands by operator "
        + "/ kind run with the back-end idle, the ten largest%n| operator / kind | commands | cycles | back-end idle |%n"
        + "|---|---:|---:|---:|%n", quant, weave == PrefillOrder.Weave.NONE ? "" : ", woven " + weave));
    layer.rows().entrySet().stream().filter(e -> e.getValue()[3] != 0)
        .sorted((a, b) -> Long.compare(b.getValue()[3], a.getValue()[3])).limit(10)
        .forEach(e -> top.append(String.format(Locale.ROOT, "| %s | %,d | %,d | %,d |%n", e.getKey(), e.getValue()[1],
            e.getValue()[0], e.getValue()[3])));
    rows = top.toString();
    System.out.printf(Locale.ROOT, "| %s | staggered%s | %,d | %,d | %,d |%n", quant,
        weave == PrefillOrder.Weave.NONE ? "" : ", woven " + weave, t, idle, softmax);
    return t;
  }
}
