package org.llmnpu.reports.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.reports.estimate.EstimateOutput;
import org.llmnpu.reports.estimate.NpuEstimate;

/**
 * {@code ./npu estimate --model llama-2-7b --preset edge-64 --prompt-len 256 --quant int8 --fusion none|full}: TTFT,
 * TPOT, prefill MAC utilization and each unit's busy share, recorded. Run with {@code mvn -q -o -pl reports -am test
 * -Dbench -Dtest='EstimateBench' -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class EstimateBench {
  @Test
  void llama2Edge64Int8() {
    for (String fusion : new String[] {"none", "full"}) {
      System.out.println("--fusion " + fusion + ":");
      NpuEstimate e = NpuEstimate.run(new NpuEstimate.Options("llama-2-7b", "edge-64", null, 256, "int8", fusion,
          null, null, 7));
      System.out.print(EstimateOutput.text(e));
    }
  }
}
