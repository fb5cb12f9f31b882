package org.llmnpu.reports.estimate.bench;

import java.util.ArrayList;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.reports.estimate.EstimateTarget;
import org.llmnpu.reports.estimate.NpuEstimate;
import org.llmnpu.sw.lower.PhaseCostModel;

/**
 * Why LLaMA-2-7B's int8 prefill on {@code edge-64} is faster copying X ({@code -p xKeep=false}) than keeping it in the
 * woven order: a steady layer of the woven two-block order ({@link DspSizeWhatIfBench#wovenProfile}) with and without
 * kept X, int8 and s2_4, and the layer's commands by operator / kind whose charged cycles moved most between the two
 * ({@link PhaseCostModel#layerProfile}'s rows: cycles charged, commands, cycles waited on the GEMM back-end, cycles with
 * no back-end running). Benchmark: {@code mvn -q -o -pl reports -am test -Dbench -Dtest='KeptXLayerBench'
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class KeptXLayerBench {
  @Test
  void llama2SevenBWovenLayerKeptAgainstCopiedX() {
    Assumptions.assumeTrue(BenchRecord.enabled(), "benchmark: run with -Dbench");
    for (String quant : new String[] {"int8", "s2_4"}) {
      PhaseCostModel.LayerProfile copied = DspSizeWhatIfBench.wovenProfile(machine(quant, false), quant);
      PhaseCostModel.LayerProfile kept = DspSizeWhatIfBench.wovenProfile(machine(quant, true), quant);
      Map<String, long[]> a = copied.rows();
      Map<String, long[]> b = kept.rows();
      System.out.printf(Locale.ROOT, "%n%s woven layer: xKeep=false %,d cycles, xKeep=true %,d (%+,d)%n", quant,
          copied.cost().cycles(), kept.cost().cycles(), kept.cost().cycles() - copied.cost().cycles());
      System.out.println("| operator / kind | commands false | cycles false | waited false | idle false | commands true "
          + "| cycles true | waited true | idle true | cycles change |");
      System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
      TreeSet<String> keys = new TreeSet<>(a.keySet());
      keys.addAll(b.keySet());
      long[] zero = new long[4];
      keys.stream().sorted((x, y) -> Long.compare(Math.abs(b.getOrDefault(y, zero)[0] - a.getOrDefault(y, zero)[0]),
          Math.abs(b.getOrDefault(x, zero)[0] - a.getOrDefault(x, zero)[0]))).limit(14).forEach(k -> {
            long[] u = a.getOrDefault(k, zero);
            long[] v = b.getOrDefault(k, zero);
            System.out.printf(Locale.ROOT, "| %s | %,d | %,d | %,d | %,d | %,d | %,d | %,d | %,d | %+,d |%n", k, u[1],
                u[0], u[2], u[3], v[1], v[0], v[2], v[3], v[0] - u[0]);
          });
    }
  }

  /** edge-64 for {@code quant} with {@code xKeep} set. */
  private static MachineParams machine(String quant, boolean xKeep) {
    return NpuEstimate.withUnitsFor(EstimateTarget.load("edge-64", null, Map.of("xKeep", Boolean.toString(xKeep))),
        quant, new ArrayList<>()).npu().machine();
  }
}
