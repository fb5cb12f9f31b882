package org.llmnpu.sw.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
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
@ExtendWith(BenchRecord.class)
class NpuLoweringBench {
  @Test
  void accuracyOfTheIntegerPath() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    String only = System.getProperty("formats");
    for (String format : only == null ? org.llmnpu.sw.lower.WeightFormats.NAMES : java.util.List.of(only.split(","))) {
      // s2_4 on the NPU with a 2:4 array; the others on the default NPU with MX decoding on the load path (the MX
      // formats need it; the integer ones do not use it)
      int sparsity = org.llmnpu.sw.lower.WeightFormats.sparsity(format);
      LogitComparison c = IntegerPathAccuracy.evaluate(w, format,
          sparsity == 0 ? NpuTargets.defaultNpu().withMxLoad(true) : NpuTargets.sparse24(), 8, 64, 2_000_000L);
      System.out.printf("| %s | %.4f | %.5f | %.1f | %d |%n", format, c.top1Agreement(), c.klDivergence(), c.snrDb(),
          c.positions());
    }
  }

  /**
   * {@code s2_4} against the FP32 model it was pruned from and against the pruned FP32 model (what
   * the integer path approximates), and its cycles against dense {@code int8}: a 16-token prefill
   * and decode steps at positions 16..19, golden counters.
   */
  @Test
  void sparseWeightsAccuracyAndCycles() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    ModelWeights pruned = org.llmnpu.sw.lower.WeightFormats.prepare(w, "s2_4");
    for (ModelWeights ref : new ModelWeights[] {w, pruned}) {
      LogitComparison c = IntegerPathAccuracy.evaluate(ref, pruned, 8, 0, org.llmnpu.isa.Command.S2_4,
          NpuTargets.sparse24(), 8, 64, 2_000_000L);
      System.out.printf("s2_4 vs %s FP32: top-1 %.4f, KL %.5f, SNR %.1f dB, %d positions%n", ref == w ? "dense" : "pruned",
          c.top1Agreement(), c.klDivergence(), c.snrDb(), c.positions());
    }
    int[][] seqs = org.llmnpu.sw.eval.SampledSequences.sample(new org.llmnpu.sw.model.Transformer(w), 8, 64, 2_000_000L);
    LogitComparison fp = LogitComparison.compare(teacherForced(w, seqs), teacherForced(pruned, seqs));
    System.out.printf("pruned FP32 vs FP32 (8 x 64 sampled tokens): top-1 %.4f, KL %.5f%n", fp.top1Agreement(),
        fp.klDivergence());
    int[] prompt = new int[16];
    prompt[0] = 1;
    for (int i = 1; i < 16; i++) {
      prompt[i] = 256 + 7 * i;
    }
    for (int run = 0; run < 4; run++) {
      String format = run % 2 == 0 ? "int8" : "s2_4";
      MachineParams m = format.equals("int8") ? NpuTargets.defaultNpu() : NpuTargets.sparse24();
      if (run >= 2) {
        m = m.withMemory(m.memLatency(), 4);
        System.out.print("memory 4 B/cycle, ");
      }
      LoweredModel model = org.llmnpu.sw.lower.WeightFormats.lower(w, format, m, 64, 16);
      NpuDecoder d = new NpuDecoder(model, 16, NpuEngine.GOLDEN);
      NpuDecoder.Step pre = d.prefill(prompt, false);
      long decode = 0;
      long[] dec = new long[Counter.values().length];
      for (int s = 0; s < 4; s++) {
        NpuDecoder.Step st = d.decode(300 + s);
        for (Counter c : Counter.values()) {
          dec[c.ordinal()] += st.counter(c);
        }
      }
      System.out.printf("%s: prefill 16 %,d cycles (gemm %,d, array %,d, dma %,d, dsp %,d, MACs %,d, DRAM read %,d B); "
          + "decode (mean of 4 at 16..19) %,d cycles (gemm %,d, array %,d, dma %,d, dsp %,d, MACs %,d, DRAM read %,d B); "
          + "weights %,d B%n", format, pre.counter(Counter.CYCLES), pre.counter(Counter.GEMM_CYCLES),
          pre.counter(Counter.ARRAY_CYCLES), pre.counter(Counter.DMA_CYCLES), pre.counter(Counter.DSP_CYCLES),
          pre.counter(Counter.MACS), 16 * pre.counter(Counter.EXT_READ_BEATS), dec[Counter.CYCLES.ordinal()] / 4,
          dec[Counter.GEMM_CYCLES.ordinal()] / 4, dec[Counter.ARRAY_CYCLES.ordinal()] / 4,
          dec[Counter.DMA_CYCLES.ordinal()] / 4, dec[Counter.DSP_CYCLES.ordinal()] / 4, dec[Counter.MACS.ordinal()] / 4,
          16 * dec[Counter.EXT_READ_BEATS.ordinal()] / 4, model.weightBytes());
    }
  }

  private static float[][] teacherForced(ModelWeights w, int[][] seqs) {
    org.llmnpu.sw.model.Transformer t = new org.llmnpu.sw.model.Transformer(w);
    float[][] out = new float[8 * 64][];
    for (int s = 0; s < 8; s++) {
      float[][] l = t.forwardAll(seqs[s], t.newCache(64));
      System.arraycopy(l, 0, out, s * 64, 64);
    }
    return out;
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
