package org.llmnpu.reports.estimate.bench;

import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.reports.estimate.NpuEstimate;
import org.llmnpu.sw.estimate.CycleEstimate;

/**
 * LLaMA-2-7B INT8 on {@code edge-64} (256-token prompt, decode at 256) at each fusion level, as
 * {@code ./npu estimate --model llama-2-7b --preset edge-64 --prompt-len 256 --quant int8 --fusion F
 * --bandwidth-gbs B --json} computes it: TTFT, TPOT, the utilizations and the fusion full against none TTFT change
 * (next to the paper's −17 / −48 / −31 %). Benchmark: {@code mvn -q -o -pl reports -am test -Dbench
 * -Dtest=FusionEstimateBench -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class FusionEstimateBench {
  @Test
  void llama2SevenBTtftPerFusionLevel() {
    System.out.println("| GB/s | fusion | TTFT s | TPOT s | prefillMacUtilization | decodeBandwidthUtilization | TTFT vs none |");
    System.out.println("|---:|---|---:|---:|---:|---:|---:|");
    for (double gbs : new double[] {64, 16}) {
      double none = 0;
      for (String fusion : new String[] {"none", "vertical", "full"}) {
        NpuEstimate e = NpuEstimate.run(new NpuEstimate.Options("llama-2-7b", "edge-64", null, 256, "int8", fusion,
            gbs, null, 7));
        CycleEstimate c = e.cycles();
        if (fusion.equals("none")) {
          none = e.ttftS();
        }
        System.out.printf(Locale.ROOT, "| %.0f | %s | %.3f | %.4f | %.3f | %.3f | %+.1f %% |%n", gbs, fusion, e.ttftS(),
            e.tpotS(), c.prefillMacUtilization(), c.decodeBandwidthUtilization(), 100 * (e.ttftS() / none - 1));
      }
    }
    System.out.println("paper (fusion against none, TTFT): -17 / -48 / -31 %");
  }

  /**
   * Issue 32's prefill targets at {@code --fusion full}, 64 GB/s: int8's prefill MAC utilization (≥ 0.70) and the 2:4
   * against int8 TTFT ratio (≤ 0.60×), as {@code ./npu estimate … --quant int8|s2_4 --json} computes them, on edge-64
   * without the DSP's permutations ({@code -p dspPermute=false}: Kᵀ by pairs of one-element rows), without the SwiGLU
   * gate through the PPM ({@code -p ppmGate=false}: h back through the DSP), copying X on every GEMM
   * ({@code -p xKeep=false}: no {@code gemm xKeep=1}), as shipped (all three), and as shipped with calibrated static
   * q/k/v scales ({@code --qkv-scales static}: the tiled QKV post, two blocks skewed where faster).
   */
  @Test
  void llama2SevenBPrefillTargets() {
    System.out.println("| NPU | quant | TTFT s | TPOT s | prefillMacUtilization | TTFT vs int8 | TPOT vs int8 |");
    System.out.println("|---|---|---:|---:|---:|---:|---:|");
    java.util.Map<String, java.util.Map<String, String>> npus = new java.util.LinkedHashMap<>();
    npus.put("edge-64 -p dspPermute=false", java.util.Map.of("dspPermute", "false"));
    npus.put("edge-64 -p ppmGate=false", java.util.Map.of("ppmGate", "false"));
    npus.put("edge-64 -p xKeep=false", java.util.Map.of("xKeep", "false"));
    npus.put("edge-64 (dspPermute, ppmGate, xKeep)", java.util.Map.of());
    npus.put("edge-64 (dspPermute, ppmGate, xKeep) --qkv-scales static", java.util.Map.of());
    for (var npu : npus.entrySet()) {
      double[] int8 = null;
      for (String quant : new String[] {"int8", "s2_4"}) {
        NpuEstimate e = NpuEstimate.run(new NpuEstimate.Options("llama-2-7b", "edge-64", null, 256, quant, "full",
            64.0, null, 7, npu.getValue(), npu.getKey().endsWith("static") ? "static" : "dynamic"));
        if (int8 == null) {
          int8 = new double[] {e.ttftS(), e.tpotS()};
        }
        System.out.printf(Locale.ROOT, "| %s | %s | %.4f | %.4f | %.4f | %.3fx | %.3fx |%n", npu.getKey(), quant,
            e.ttftS(), e.tpotS(), e.cycles().prefillMacUtilization(), e.ttftS() / int8[0], e.tpotS() / int8[1]);
        System.out.printf("  prefill: %s%n", e.cycles().prefillOrder());
      }
    }
    System.out.println("targets: int8 prefillMacUtilization >= 0.70, s2_4 TTFT <= 0.60x, TPOT <= 0.70x");
  }

  /**
   * The prefill targets as shipped (the engine keeps its X buffer, {@code xKeep}) and on the NPU that copies X on every
   * GEMM ({@code -p xKeep=false}), int8 and 2:4, with the prefill order the estimate picks among one block at a time,
   * two blocks skewed, two blocks staggered by half a layer ({@code DecoderLowering#staggered}) and staggered with the
   * gated feed-forward woven into the other block's attention ({@code PrefillOrder.Weave#GATED}), as {@code ./npu
   * estimate --model llama-2-7b --preset edge-64 --quant int8|s2_4 --json [-p xKeep=false]} computes them.
   */
  @Test
  void llama2SevenBStaggeredPrefill() {
    System.out.println("| NPU | quant | TTFT s | prefill cycles | prefillMacUtilization | TTFT vs int8 | prefill order |");
    System.out.println("|---|---|---:|---:|---:|---:|---|");
    for (boolean keep : new boolean[] {true, false}) {
      double int8 = 0;
      for (String quant : new String[] {"int8", "s2_4"}) {
        NpuEstimate e = NpuEstimate.run(new NpuEstimate.Options("llama-2-7b", "edge-64", null, 256, quant, "full",
            64.0, null, 7, keep ? java.util.Map.of() : java.util.Map.of("xKeep", "false"), "dynamic"));
        if (int8 == 0) {
          int8 = e.ttftS();
        }
        String order = e.cycles().prefillOrder();
        System.out.printf(Locale.ROOT, "| edge-64%s | %s | %.4f | %,d | %.4f | %.3fx | %s |%n",
            keep ? " (xKeep, as shipped)" : " -p xKeep=false", quant, e.ttftS(), e.cycles().prefill().cycles(),
            e.cycles().prefillMacUtilization(), e.ttftS() / int8, order.contains("woven") ? "two blocks woven GATED"
                : order.contains("staggered") ? "two blocks staggered"
                : order.contains("skewed") && !order.startsWith("one") ? "two blocks skewed" : order);
      }
    }
  }
}
