package org.llmnpu.sw.bench;

import java.util.Locale;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.eval.LogitComparison;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.IntegerPathAccuracy;
import org.llmnpu.sw.lower.NpuTargets;
import org.llmnpu.sw.lower.WeightFormats;
import org.llmnpu.sw.model.ModelWeights;

/**
 * The integer path's accuracy against FP32 on held-out sequences sampled from stories260K, per fusion level and
 * weight format, on the golden simulator: top-1 agreement and KL(FP32 ‖ NPU) over every position (teacher-forced,
 * one prefill program per sequence with every token's logits). A benchmark (minutes), not a test:
 * {@code java -cp … org.llmnpu.sw.bench.FusionAccuracyBench [sequences] [length] [formats, comma-separated]
 * [W2 smoothing strengths, comma-separated]}. The row {@code full+gate} runs {@code full} on the same NPU with the PPM's
 * gate operand ({@code MachineParams.ppmGate}): the SwiGLU gate through the PPM with the W2 input's static scale, the
 * W2 input smoothed per channel at 8-bit weights (SmoothQuant α = 0.5, {@code PpmEpilogues#stored}); the optional
 * fourth argument adds a {@code full+gate α=…} row per strength ({@code 0}: not smoothed). The rows
 * {@code +static q/k/v} quantize q, k and v with their calibrated static per-tensor scales
 * ({@code DecoderLowering#staticQkv}) instead of each token's absmax.
 */
public final class FusionAccuracyBench {
  private FusionAccuracyBench() {
  }

  public static void main(String[] args) throws Exception {
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 2;
    int length = args.length > 1 ? Integer.parseInt(args[1]) : 64;
    String[] formats = args.length > 2 ? args[2].split(",") : new String[] {"int8", "int4", "int4-g32", "s2_4"};
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    System.out.printf(Locale.ROOT, "held-out: %d sequences x %d tokens (seed 2000000)%n", count, length);
    System.out.println("| weights | fusion | top-1 agreement | KL (nats) |");
    System.out.println("|---|---|---:|---:|");
    // int8, int4 (per channel) and s2_4 take the PPM epilogue at vertical/full; int4-g32 streams its group-scaled
    // INT4 copies there (one scale per channel on the DSP)
    for (String format : formats) {
      MachineParams m = (WeightFormats.sparsity(format) == org.llmnpu.isa.Command.S2_4 ? NpuTargets.sparse24()
          : NpuTargets.defaultNpu()).withMxLoad(WeightFormats.mx(format) >= 0);
      for (Fusion f : new Fusion[] {Fusion.NONE, Fusion.VERTICAL, Fusion.FULL}) {
        LogitComparison c = IntegerPathAccuracy.evaluate(w, format, m, count, length, 2_000_000L, f);
        System.out.printf(Locale.ROOT, "| %s | %s | %.4f | %.5f |%n", format, f.optionValue(), c.top1Agreement(),
            c.klDivergence());
      }
      LogitComparison gated = IntegerPathAccuracy.evaluate(w, format, m.withPpmGate(true), count, length, 2_000_000L,
          Fusion.FULL);
      System.out.printf(Locale.ROOT, "| %s | full+gate | %.4f | %.5f |%n", format, gated.top1Agreement(),
          gated.klDivergence());
      for (MachineParams staticOn : new MachineParams[] {m, m.withPpmGate(true)}) {
        LogitComparison s = IntegerPathAccuracy.evaluate(w, format, staticOn, count, length, 2_000_000L, Fusion.FULL,
            true);
        System.out.printf(Locale.ROOT, "| %s | %s | %.4f | %.5f |%n", format,
            staticOn.ppmGate() ? "full+gate+static q/k/v" : "full+static q/k/v", s.top1Agreement(), s.klDivergence());
      }
      for (String alpha : args.length > 3 ? args[3].split(",") : new String[0]) {
        LogitComparison a = IntegerPathAccuracy.evaluate(w, format, m.withPpmGate(true), count, length, 2_000_000L,
            Fusion.FULL, Double.parseDouble(alpha));
        System.out.printf(Locale.ROOT, "| %s | full+gate α=%s | %.4f | %.5f |%n", format, alpha, a.top1Agreement(),
            a.klDivergence());
      }
    }
  }
}
