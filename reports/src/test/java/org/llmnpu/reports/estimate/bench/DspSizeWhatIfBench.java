package org.llmnpu.reports.estimate.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.reports.estimate.EstimateTarget;
import org.llmnpu.reports.estimate.NpuEstimate;
import org.llmnpu.sw.estimate.CycleEstimate;
import org.llmnpu.sw.estimate.CycleEstimator;
import org.llmnpu.sw.estimate.ModelShapes;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.PhaseCostModel;
import org.llmnpu.sw.lower.WeightFormats;
import org.llmnpu.sw.model.ModelConfig;

/**
 * How much the Vector DSP's size moves LLaMA-2-7B's prefill on {@code edge-64} (256-token prompt, fusion full, as
 * {@code ./npu estimate --model llama-2-7b --preset edge-64 --prompt-len 256 --quant Q} computes it): the preset's
 * machine with its DSP's lanes and program words replaced, the buffer's FP16 elements kept (rows = elements / lanes),
 * everything else the preset's. For each DSP: TTFT, TPOT, prefill MAC utilization, and one profiled layer's DSP runs
 * and copies ({@link PhaseCostModel#profile}). The cycle model alone (no RTL): it sizes the lever before the hardware
 * is built. Benchmark: {@code mvn -q -o -pl reports -am test -Dbench -Dtest=DspSizeWhatIfBench
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class DspSizeWhatIfBench {
  private static final int PROMPT = 256;

  @Test
  void llama2SevenBPrefillPerDspSize() {
    int[][] sizes = {{32, 256}, {64, 256}, {32, 512}, {32, 1024}, {64, 512}, {64, 1024}};
    System.out.println("| quant | dsp lanes | program words | TTFT s | TPOT s | prefillMacUtilization | "
        + "layer cycles | layer DSP runs | layer DSP copies | TTFT vs 32 lanes, 256 words |");
    System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (String quant : new String[] {"int8", "s2_4"}) {
      List<String> notes = new ArrayList<>();
      EstimateTarget t = NpuEstimate.withUnitsFor(EstimateTarget.load("edge-64", null), quant, notes);
      MachineParams preset = t.npu().machine();
      long elements = preset.dsp().elements();
      double base = 0;
      for (int[] size : sizes) {
        MachineParams.DspParams d = preset.dsp();
        MachineParams p = preset.withDsp(new MachineParams.DspParams(size[0], (int) (elements / size[0]), size[1],
            d.tableSegments(), d.tableDegree(), d.maxRunCycles(), d.executeStages(), d.permute()));
        CycleEstimate e = CycleEstimator.estimate(ModelShapes.of("llama-2-7b"), p, quant, PROMPT, Fusion.FULL);
        double ttft = e.prefill().cycles() / (t.clockMhz() * 1e6);
        double tpot = e.decode().cycles() / (t.clockMhz() * 1e6);
        if (base == 0) {
          base = ttft;
        }
        long[] layer = layer(p, quant);
        System.out.printf(Locale.ROOT, "| %s | %d | %d | %.4f | %.4f | %.4f | %,d | %,d | %,d | %.3fx |%n", quant,
            size[0], size[1], ttft, tpot, e.prefillMacUtilization(), layer[0], layer[1], layer[2], ttft / base);
      }
    }
  }

  /** Layer 0's cycles, DSP run cycles and DSP copy cycles (setup and LM head left out). */
  private static long[] layer(MachineParams p, String quant) {
    ModelConfig c = ModelShapes.of("llama-2-7b").config();
    PhaseCostModel cost = new PhaseCostModel(c, p, PROMPT + 1, Math.min(p.maxM(), PROMPT), true,
        WeightFormats.bits(quant), WeightFormats.group(quant), WeightFormats.sparsity(quant), WeightFormats.mx(quant),
        Fusion.FULL);
    long[] sums = new long[3];
    for (Map.Entry<String, long[]> e : cost.profile(PROMPT, 0, 1).entrySet()) {
      String key = e.getKey();
      if (key.startsWith("setup /") || key.startsWith("lm head /")) {
        continue;
      }
      long cycles = e.getValue()[0];
      sums[0] += cycles;
      if (key.endsWith("/ dsprun")) {
        sums[1] += cycles;
      } else if (key.endsWith("/ dspin") || key.endsWith("/ dspout")) {
        sums[2] += cycles;
      }
    }
    return sums;
  }
}
