package org.llmnpu.sw.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspPipeline;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.lower.DecoderLowering;
import org.llmnpu.sw.lower.LoweredModel;
import org.llmnpu.sw.lower.NpuTargets;
import org.llmnpu.sw.model.ModelWeights;

/**
 * Where the Vector DSP's interlock stalls come from in the lowered stories260K on the default NPU (four
 * execute stages): per DSP program of a 16-token prefill and of the decode step after it, its runs, words,
 * cycles with one execute stage and with the NPU's, and their difference (the stalls). Static counts
 * ({@code DspProgram.cycles}), the ones the golden model and the RTL count. Run with {@code mvn -B -o test
 * -pl sw-stack -am -Dbench -Dtest=DspStallBench -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class DspStallBench {
  @Test
  void profile() throws Exception {
    MachineParams npu = NpuTargets.defaultNpu();
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    LoweredModel model = new LoweredModel(w, npu, 64, 16);
    Map<String, long[]> stats = new LinkedHashMap<>();
    DecoderLowering low = new DecoderLowering(model, 16, p -> {
      String key = p.name().replaceAll(" ?@(\\[[^]]*\\]->\\[[^]]*\\]|\\S*)", "");
      long[] s = stats.computeIfAbsent(key, k -> new long[4]);
      s[0]++;
      s[1] += p.cycles(DspPipeline.ONE_STAGE_EXECUTE);
      s[2] += p.cycles(npu.dsp().pipeline());
      s[3] = p.size();
      return 0x1000;
    });
    int[] prompt = new int[16];
    prompt[0] = 1;
    for (int i = 1; i < 16; i++) {
      prompt[i] = 256 + 7 * i;
    }
    low.step(prompt, 0, false);
    print(stats, "prefill 16");
    stats.clear();
    low.step(new int[] {300}, 16, false);
    print(stats, "decode at 16");
  }

  private static void print(Map<String, long[]> stats, String title) {
    System.out.println(title + ": program | runs | words | cycles 1 stage | cycles 4 | stalls");
    long t1 = 0, t4 = 0;
    for (var e : stats.entrySet()) {
      long[] s = e.getValue();
      t1 += s[1];
      t4 += s[2];
      System.out.printf("%-40s %5d %4d %9d %9d %8d%n", e.getKey(), s[0], s[3], s[1], s[2], s[2] - s[1]);
    }
    System.out.printf("total %d %d stalls %d%n", t1, t4, t4 - t1);
  }
}
