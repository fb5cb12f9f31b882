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
    for (String quant : new String[] {"int8", "s2_4"}) {
      List<String> notes = new ArrayList<>();
      EstimateTarget t = NpuEstimate.withUnitsFor(EstimateTarget.load("edge-64", null), quant, notes);
      MachineParams p = t.npu().machine();
      ModelConfig c = ModelShapes.of("llama-2-7b").config();
      PhaseCostModel cost = new PhaseCostModel(c, p, PROMPT + 1, Math.min(p.maxM(), PROMPT), true,
          WeightFormats.bits(quant), WeightFormats.group(quant), WeightFormats.sparsity(quant),
          WeightFormats.mx(quant), Fusion.FULL);
      Map<String, long[]> rows = cost.profile(PROMPT, 0, 1);
      print(quant, rows, byOperator(rows));
    }
  }

  private static Map<String, long[]> byOperator(Map<String, long[]> rows) {
    Map<String, long[]> ops = new TreeMap<>();
    rows.forEach((k, v) -> {
      long[] o = ops.computeIfAbsent(k.substring(0, k.indexOf(" / ")), x -> new long[2]);
      o[0] += v[0];
      o[1] += v[1];
    });
    return ops;
  }

  private static void print(String quant, Map<String, long[]> rows, Map<String, long[]> ops) {
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
