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
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.sw.estimate.CycleEstimate;
import org.llmnpu.sw.estimate.CycleEstimator;
import org.llmnpu.sw.estimate.ModelShapes;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.PhaseCostModel;
import org.llmnpu.sw.lower.WeightFormats;
import org.llmnpu.sw.model.ModelConfig;

/**
 * What the SwiGLU gate through the PPM ({@code gemm ppm=1 gate=1}) buys LLaMA-2-7B's 256-token prefill on
 * {@code edge-64} at {@code --fusion full}: the estimate ({@link CycleEstimator}, as {@code ./npu estimate --model
 * llama-2-7b --preset edge-64 --prompt-len 256 --quant Q --fusion full} computes it) on the preset's NPU, which ships
 * the NPU parameter {@code ppmGate}, and on the same NPU without it ({@code -p ppmGate=false}; the gated PPM is
 * RTL-validated: {@code GatedGemmCosimTest} and {@code GatedSwigluDecoderCosimTest} run it bit-exact with RTL cycles =
 * this cycle model), then the gated layer by operator ({@link PrefillProfileBench#print}). Issue 32's targets: int8
 * prefill MAC utilization ≥ 0.70, s2_4 TTFT ≤ 0.60× int8's. Benchmark: {@code mvn -q -pl reports -am test -Dbench -Dtest=SwigluGateBench
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class SwigluGateBench {
  private static final int PROMPT = 256;

  @Test
  void llama2SevenBPrefillWithTheGateThroughThePpm() {
    ModelShapes.Shape shape = ModelShapes.of("llama-2-7b");
    ModelConfig c = shape.config();
    System.out.println("| quant | NPU | prefill cycles | prefillMacUtilization | TTFT vs int8 (same NPU) |");
    System.out.println("|---|---|---:|---:|---:|");
    long[] int8 = new long[2];
    for (String quant : new String[] {"int8", "s2_4"}) {
      NpuConfig npu = NpuEstimate.withUnitsFor(EstimateTarget.load("edge-64", null), quant, new ArrayList<>()).npu();
      for (int gate = 0; gate < 2; gate++) {
        MachineParams p = npu.toBuilder().ppmGate(gate == 1).build().machine();
        CycleEstimate e = CycleEstimator.estimate(shape, p, quant, PROMPT, Fusion.FULL);
        long cycles = e.prefill().cycles();
        if (quant.equals("int8")) {
          int8[gate] = cycles;
        }
        System.out.printf(Locale.ROOT, "| %s | %s | %,d | %.4f | %.3fx |%n", quant,
            gate == 1 ? "edge-64 (ppmGate, as shipped)" : "edge-64 -p ppmGate=false", cycles, e.prefillMacUtilization(),
            cycles / (double) int8[gate]);
      }
    }
    System.out.println("targets: int8 prefillMacUtilization >= 0.70, s2_4 TTFT <= 0.60x");
    System.out.println("edge-64 ships ppmGate (RTL-validated: GatedGemmCosimTest, GatedSwigluDecoderCosimTest); "
        + "-p ppmGate=false: the same NPU with h back through the DSP");
    for (String quant : new String[] {"int8", "s2_4"}) {
      MachineParams p = NpuEstimate.withUnitsFor(EstimateTarget.load("edge-64", null), quant, new ArrayList<>()).npu()
          .toBuilder().ppmGate(true).build().machine();
      PhaseCostModel cost = new PhaseCostModel(c, p, PROMPT + 1, Math.min(p.maxM(), PROMPT), true,
          WeightFormats.bits(quant), WeightFormats.group(quant), WeightFormats.sparsity(quant),
          WeightFormats.mx(quant), Fusion.FULL);
      Map<String, long[]> rows = cost.profile(PROMPT, 0, 1);
      Map<String, long[]> ops = PrefillProfileBench.byOperator(rows);
      PrefillProfileBench.print(quant + " with the gate through the PPM", rows, ops);
      PrefillProfileBench.summary(c, p, ops);
    }
  }
}
