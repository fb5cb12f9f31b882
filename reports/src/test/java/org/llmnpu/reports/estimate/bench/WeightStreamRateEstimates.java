package org.llmnpu.reports.estimate.bench;

import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.reports.estimate.NpuEstimate;
import org.llmnpu.sw.estimate.CycleEstimate;

/**
 * LLaMA-2-7B on {@code edge-64} (256-token prompt, decode at 256, {@code --fusion full}) per weight format at 64 and
 * 16 GB/s, as {@code ./npu estimate --model llama-2-7b --preset edge-64 --prompt-len 256 --quant Q --bandwidth-gbs B
 * --json} computes it, and each format's TPOT and TTFT against INT8's next to its {@code decodeDramBytesPerToken}
 * ratio: what the streamed formats (INT4 at the port's rate in N-tile pair order, 2:4 with its metadata first) buy
 * at system level. Benchmark: {@code mvn -q -o -pl reports -am test -Dbench -Dtest=WeightStreamRateEstimates
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class WeightStreamRateEstimates {
  @Test
  void llama2SevenBPerWeightFormat() {
    System.out.println("| GB/s | quant | TTFT s | TPOT s | prefillMacUtilization | decodeBandwidthUtilization"
        + " | decodeDramBytesPerToken | TPOT / int8 | bytes / int8 | TPOT ratio / bytes ratio | TTFT / int8 |");
    System.out.println("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (double gbs : new double[] {64, 16}) {
      NpuEstimate int8 = null;
      for (String quant : new String[] {"int8", "int4-g32", "s2_4"}) {
        NpuEstimate e = NpuEstimate.run(new NpuEstimate.Options("llama-2-7b", "edge-64", null, 256, quant, "full",
            gbs, null, 7));
        if (int8 == null) {
          int8 = e;
        }
        CycleEstimate c = e.cycles();
        double tpot = e.tpotS() / int8.tpotS();
        double bytes = (double) c.decodeDramBytesPerToken() / int8.cycles().decodeDramBytesPerToken();
        System.out.printf(Locale.ROOT, "| %.0f | %s | %.4f | %.5f | %.4f | %.3f | %d | %.3f | %.3f | %.3f | %.3f |%n",
            gbs, quant, e.ttftS(), e.tpotS(), c.prefillMacUtilization(), c.decodeBandwidthUtilization(),
            c.decodeDramBytesPerToken(), tpot, bytes, tpot / bytes, e.ttftS() / int8.ttftS());
      }
    }
  }
}
