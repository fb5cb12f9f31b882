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
}
