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
 * LLaMA-2-7B's 256-token prefill on {@code edge-64} as shipped ({@code --fusion full}) in the estimate's order (two
 * token blocks in flight, staggered by half a layer, each block's gated W1/W3 and W2 GEMMs woven into the other block's
 * attention: {@link PrefillOrder.Weave#GATED}), one interleaver window a layer against windows across layers
 * ({@code DecoderLowering#acrossLayers}: the layer boundary a marker, the program memory's placements kept from layer
 * to layer, both blocks' runs re-loaded by a {@code dspld}): the whole prefill's cycles (the walk costs layers 0 and 1,
 * and 2 across layers, and scales the steady layer), and the {@code dspld}s and {@code dsprun}s of a profile
 * ({@link PhaseCostModel#profile}, layer 0 plus the setup and LM head, across layers layers 0–2: the window's drain is
 * the last layer's). Benchmark: {@code mvn -q -o -pl reports -am test -Dbench -Dtest=WindowsAcrossLayersBench
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class WindowsAcrossLayersBench {
  private static final int PROMPT = 256;

  @Test
  void llama2SevenBPrefillWindowsAcrossLayers() {
    Assumptions.assumeTrue(BenchRecord.enabled(), "benchmark: run with -Dbench");
    ModelConfig c = ModelShapes.of("llama-2-7b").config();
    System.out.println("| quant | order | prefill cycles | against a window a layer | profiled layers | dspld | dspld cycles "
        + "| dsprun | dsprun cycles |\n|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for (String quant : new String[] {"int8", "s2_4"}) {
      MachineParams p = NpuEstimate.withUnitsFor(EstimateTarget.load("edge-64", null), quant, new ArrayList<>())
          .npu().machine();
      long base = 0;
      for (boolean across : new boolean[] {false, true}) {
        long cycles = model(c, p, quant, across).step(PROMPT, 0, 2).cycles();
        base = across ? base : cycles;
        Map<String, long[]> rows = model(c, p, quant, across).profile(PROMPT, 0, 1);
        long[] loads = kind(rows, "dspld");
        long[] runs = kind(rows, "dsprun");
        System.out.printf(Locale.ROOT, "| %s | %s | %,d | %.4f | %d | %,d | %,d | %,d | %,d |%n", quant,
            across ? "woven GATED, windows across layers" : "woven GATED, a window a layer", cycles, cycles / (double) base,
            across ? 3 : 1, loads[1], loads[0], runs[1], runs[0]);
      }
    }
  }

  private static PhaseCostModel model(ModelConfig c, MachineParams p, String quant, boolean across) {
    return new PhaseCostModel(c, p, PROMPT + 1, Math.min(p.maxM(), PROMPT), true, WeightFormats.bits(quant),
        WeightFormats.group(quant), WeightFormats.sparsity(quant), WeightFormats.mx(quant), Fusion.FULL)
        .order(new PrefillOrder(true, true, false, true, across, PrefillOrder.Weave.GATED));
  }

  /** The profile rows of command kind {@code kind} summed: {cycles, commands}. */
  private static long[] kind(Map<String, long[]> rows, String kind) {
    long[] sum = new long[2];
    rows.forEach((k, v) -> {
      if (k.endsWith(" / " + kind)) {
        sum[0] += v[0];
        sum[1] += v[1];
      }
    });
    return sum;
  }
}
