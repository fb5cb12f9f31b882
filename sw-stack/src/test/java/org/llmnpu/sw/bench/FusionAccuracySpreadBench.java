package org.llmnpu.sw.bench;

import java.util.Locale;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.eval.LogitComparison;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.lower.DecoderLowering;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.LoweredModel;
import org.llmnpu.sw.lower.NpuDecoder;
import org.llmnpu.sw.lower.NpuEngine;
import org.llmnpu.sw.lower.NpuTargets;
import org.llmnpu.sw.lower.WeightFormats;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Transformer;

/**
 * {@link FusionAccuracyBench}'s rows {@code full} and {@code full+gate} (int8, or the weight format given) on the
 * held-out set, each sequence on its own: top-1 and KL per sequence, then all positions together (the bench's figure;
 * with sequences of one length also the mean of the sequences' KL) with the sequences' KL standard deviation and the
 * standard error of their mean, so that a change's KL can be judged against the spread across the sequences. Two
 * builds' per-sequence figures (the same sequences) pair for a paired difference. A benchmark (about a minute for
 * 8 × 64 tokens), not a test: {@code java -cp … org.llmnpu.sw.bench.FusionAccuracySpreadBench [sequences] [length]
 * [format]}.
 */
public final class FusionAccuracySpreadBench {
  private FusionAccuracySpreadBench() {
  }

  public static void main(String[] args) throws Exception {
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 8;
    int length = args.length > 1 ? Integer.parseInt(args[1]) : 64;
    String format = args.length > 2 ? args[2] : "int8";
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    Transformer fp32 = new Transformer(w);
    int[][] sequences = SampledSequences.sample(fp32, count, length, SampledSequences.EVALUATION_SEED);
    System.out.printf(Locale.ROOT, "held-out: %d sequences x %d tokens (seed %d), %s%n", count, length,
        SampledSequences.EVALUATION_SEED, format);
    System.out.println("| fusion | top-1 | KL (nats) | KL SD of sequences | SE of mean | per sequence top-1/KL |");
    System.out.println("|---|---:|---:|---:|---:|---|");
    MachineParams npu = WeightFormats.sparsity(format) == org.llmnpu.isa.Command.S2_4 ? NpuTargets.sparse24()
        : NpuTargets.defaultNpu();
    for (MachineParams m : new MachineParams[] {npu, npu.withPpmGate(true)}) {
      LoweredModel model = WeightFormats.lower(w, format, m, length, length);
      float[][] reference = new float[count * length][];
      float[][] got = new float[count * length][];
      double[] kl = new double[count];
      StringBuilder each = new StringBuilder();
      for (int s = 0; s < count; s++) {
        float[][] ref = fp32.forwardAll(sequences[s], fp32.newCache(length));
        NpuDecoder decoder = new NpuDecoder(model, DecoderLowering.largestBlock(model, 16), NpuEngine.GOLDEN,
            Fusion.FULL);
        float[][] logits = decoder.prefill(sequences[s], true).logits();
        for (int i = 0; i < length; i++) {
          reference[s * length + i] = ref[i];
          got[s * length + i] = logits[i];
        }
        LogitComparison one = LogitComparison.compare(ref, logits);
        kl[s] = one.klDivergence();
        each.append(String.format(Locale.ROOT, " %.4f/%.5f", one.top1Agreement(), one.klDivergence()));
      }
      double mean = 0;
      for (double k : kl) {
        mean += k / count;
      }
      double var = 0;
      for (double k : kl) {
        var += (k - mean) * (k - mean) / Math.max(1, count - 1);
      }
      LogitComparison all = LogitComparison.compare(reference, got);
      System.out.printf(Locale.ROOT, "| %s | %.4f | %.5f | %.5f | %.5f |%s |%n", m.ppmGate() ? "full+gate" : "full",
          all.top1Agreement(), all.klDivergence(), Math.sqrt(var), Math.sqrt(var / count), each);
    }
  }
}
