package org.llmnpu.reports.estimate.bench;

import java.util.ArrayList;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.reports.estimate.EstimateTarget;
import org.llmnpu.reports.estimate.NpuEstimate;
import org.llmnpu.sw.estimate.CycleEstimator;
import org.llmnpu.sw.estimate.ModelShapes;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.PhaseCost;
import org.llmnpu.sw.lower.PhaseCostModel;
import org.llmnpu.sw.lower.PrefillOrder;
import org.llmnpu.sw.lower.WeightFormats;
import org.llmnpu.sw.model.ModelConfig;

/**
 * What static q/k/v scales ({@code DecoderLowering#staticQkv}) and, with them, the tile-by-tile QKV post buy
 * LLaMA-2-7B's 256-token prefill on {@code edge-64} at {@code --fusion full}, on the extrapolated walk
 * ({@link PhaseCostModel}, as {@link CycleEstimator} runs it): per token with dynamic scales (today), per token with
 * static scales, and {@link PhaseCostModel#staticQkv} with {@code tiledPost} (Wqkv ordered per tile, each QKV tile's
 * dequantize, RoPE and static quantization right after the next tile's GEMM, for the block's 64 tokens at once: one
 * scale, one RoPE and one quantization run per segment, {@code BlockQkvPost}; the walk of what the lowering emits,
 * {@code TiledQkvPost}), each on {@code edge-64} as shipped (the PPM's gate operand, {@code ppmGate}) and with
 * {@code -p ppmGate=false}, the NPU from {@code npu estimate}'s loader; then dynamic and static with the tiled post with
 * two token blocks in flight, skewed ({@link PhaseCostModel#skewed}, the order the estimate takes with static scales
 * where faster), and dynamic in the estimate's order on the gated NPU (two blocks staggered, the gated feed-forward
 * woven into the other block's attention, {@link PrefillOrder.Weave#GATED}). Every walk costs layers 0 and 1 and scales
 * layer 1 to the rest, as {@link CycleEstimator} does. Then the tiled layer by operator.
 * Issue 32's targets: int8 prefill MAC utilization ≥ 0.70, s2_4 TTFT ≤ 0.60× int8's. Benchmark:
 * {@code mvn -q -pl reports -am test -Dbench -Dtest=TiledQkvPostBench -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class TiledQkvPostBench {
  private static final int PROMPT = 256;
  private static final String[] MODES = {"dynamic q/k/v", "static q/k/v", "static, tiled post",
      "dynamic, two blocks skewed", "static, tiled post, two blocks skewed",
      "dynamic, two blocks woven GATED (the estimate's order)"};
  /** The mode in the estimate's order, which needs the gated feed-forward. */
  private static final int WOVEN = 5;

  private static PhaseCostModel walk(ModelConfig c, MachineParams p, String quant, int mode) {
    boolean skewed = mode == 3 || mode == 4;
    boolean tiled = mode == 2 || mode == 4;
    PhaseCostModel m = new PhaseCostModel(c, p, PROMPT + 1, Math.min(p.maxM(), PROMPT), true, WeightFormats.bits(quant),
        WeightFormats.group(quant), WeightFormats.sparsity(quant), WeightFormats.mx(quant), Fusion.FULL)
        .staticQkv(mode == 1 || tiled, tiled);
    return mode == WOVEN ? m.order(new PrefillOrder(true, true, false, true, true, PrefillOrder.Weave.GATED))
        : m.interleave(skewed, skewed).skewed(skewed);
  }

  private static MachineParams machine(String quant, boolean gate) {
    return NpuEstimate.withUnitsFor(EstimateTarget.load("edge-64", null, gate ? Map.of() : Map.of("ppmGate", "false")),
        quant, new ArrayList<>()).npu().machine();
  }

  @Test
  void llama2SevenBPrefillWithATiledQkvPost() {
    ModelShapes.Shape shape = ModelShapes.of("llama-2-7b");
    ModelConfig c = shape.config();
    System.out.println("| quant | NPU | QKV post | prefill cycles | one layer | prefillMacUtilization "
        + "| TTFT vs int8 |");
    System.out.println("|---|---|---|---:|---:|---:|---:|");
    long[][] int8 = new long[2][MODES.length];
    for (String quant : new String[] {"int8", "s2_4"}) {
      for (int gate = 0; gate < 2; gate++) {
        MachineParams p = machine(quant, gate == 1);
        for (int mode = 0; mode < MODES.length; mode++) {
          if (mode == WOVEN && gate == 0) {
            continue;
          }
          // the walk's layers from the second on cost the same (CycleEstimator)
          PhaseCost step = walk(c, p, quant, mode).step(PROMPT, 0, 2);
          // one layer: layer 0's profile rows; across layers (the woven order) a steady layer (3 layers' walk minus 2's)
          long layer = mode == WOVEN ? walk(c, p, quant, mode).layerProfile(PROMPT, 0).cost().cycles()
              : PrefillProfileBench.byOperator(walk(c, p, quant, mode).profile(PROMPT, 0, 1)).entrySet().stream()
              .filter(e -> !e.getKey().equals("setup") && !e.getKey().equals("lm head"))
              .mapToLong(e -> e.getValue()[0]).sum();
          long cycles = step.cycles();
          if (quant.equals("int8")) {
            int8[gate][mode] = cycles;
          }
          double macs = step.macs() / ((double) p.rows() * p.rows() * cycles);
          System.out.printf(Locale.ROOT, "| %s | %s | %s | %,d | %,d | %.4f | %.3fx |%n", quant,
              gate == 1 ? "edge-64 (ppmGate, as shipped)" : "edge-64 -p ppmGate=false", MODES[mode], cycles, layer, macs,
              cycles / (double) int8[gate][mode]);
        }
      }
    }
    System.out.println("targets: int8 prefillMacUtilization >= 0.70, s2_4 TTFT <= 0.60x (the same NPU and QKV post)");
    for (int gate = 0; gate < 2; gate++) {
      MachineParams p = machine("int8", gate == 1);
      Map<String, long[]> rows = walk(c, p, "int8", 2).profile(PROMPT, 0, 1);
      Map<String, long[]> ops = PrefillProfileBench.byOperator(rows);
      PrefillProfileBench.print("int8, static q/k/v, tiled QKV post" + (gate == 1 ? ", ppmGate (as shipped)"
          : ", -p ppmGate=false"), rows, ops);
      PrefillProfileBench.summary(c, p, ops);
    }
  }
}
