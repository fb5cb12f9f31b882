package org.llmnpu.sw.bench;

import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.eval.LogitComparison;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.lower.IntegerPathAccuracy;
import org.llmnpu.sw.lower.LoweredModel;
import org.llmnpu.sw.lower.NpuDecoder;
import org.llmnpu.sw.lower.NpuEngine;
import org.llmnpu.sw.lower.NpuTargets;
import org.llmnpu.sw.model.ModelWeights;

/**
 * Figures of the lowered stories260K on the golden ISA simulator: integer-path accuracy against
 * FP32 and the wall time of a 16-token prefill and of decode steps. Run with
 * {@code mvn -pl sw-stack -am test -Pbench -Dbench -Dtest='org.llmnpu.sw.bench.NpuLoweringBench'
 * -Dsurefire.failIfNoSpecifiedTests=false} ({@code -Dformats=mxfp8,int8}: only those weight formats).
 */
class NpuLoweringBench {
  @Test
  void accuracyOfTheIntegerPath() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    String only = System.getProperty("formats");
    for (String format : only == null ? org.llmnpu.sw.lower.WeightFormats.NAMES : java.util.List.of(only.split(","))) {
      // the default NPU with MX decoding on the load path (mxfp8 needs it; the other formats do not use it)
      LogitComparison c = IntegerPathAccuracy.evaluate(w, format, NpuTargets.defaultNpu().withMxLoad(true), 8, 64,
          2_000_000L);
      System.out.printf("| %s | %.4f | %.5f | %.1f | %d |%n", format, c.top1Agreement(), c.klDivergence(), c.snrDb(),
          c.positions());
    }
  }

  @Test
  void wallTimeOnTheGoldenSimulator() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams m = NpuTargets.defaultNpu();
    LoweredModel model = new LoweredModel(w, m, 64, 16);
    int[] prompt = new int[16];
    prompt[0] = 1;
    for (int i = 1; i < 16; i++) {
      prompt[i] = 256 + 7 * i;
    }
    for (int rep = 0; rep < 3; rep++) {
      NpuDecoder d = new NpuDecoder(model, 16, NpuEngine.GOLDEN);
      NpuDecoder.Step pre = d.prefill(prompt, false);
      System.out.printf("prefill 16: lower %.3f s, golden run %.3f s, %d commands, %,d model cycles%n",
          pre.lowerSeconds(), pre.runSeconds(), pre.commands(), pre.counter(Counter.CYCLES));
      for (int s = 0; s < 4; s++) {
        NpuDecoder.Step st = d.decode(300 + s);
        System.out.printf("decode at %d: lower %.3f s, golden run %.3f s, %d commands, %,d model cycles%n",
            16 + s, st.lowerSeconds(), st.runSeconds(), st.commands(), st.counter(Counter.CYCLES));
      }
    }
  }

  @Test
  void whichQuantizationSiteCostsAccuracy() throws Exception {
    W8A8Probe.main(new String[0]);
  }
}
