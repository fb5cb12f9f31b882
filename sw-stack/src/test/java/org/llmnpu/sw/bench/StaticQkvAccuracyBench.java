package org.llmnpu.sw.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.eval.LogitComparison;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.IntegerPathAccuracy;
import org.llmnpu.sw.lower.NpuTargets;
import org.llmnpu.sw.model.ModelWeights;

/**
 * Whether calibrated static q/k/v scales ({@code DecoderLowering#staticQkv}) keep the integer path's accuracy: on
 * held-out sequences sampled from stories260K (seed 2,000,000, not the calibration set's), at {@code --fusion full} on
 * the default NPU without and with the PPM's gate operand ({@code ppmGate}, which edge-64 ships), each variant's
 * top-1 agreement and KL(FP32 ‖ NPU) per sequence, pooled, and the paired difference static − dynamic per sequence
 * (the same sequences, so the sequences' own difficulty cancels): its mean, standard deviation and a 95 % confidence
 * interval of the mean (Student's t, n − 1 degrees of freedom). A benchmark (minutes on the golden simulator):
 * {@code java -cp … org.llmnpu.sw.bench.StaticQkvAccuracyBench [sequences] [length] [format]}.
 */
public final class StaticQkvAccuracyBench {
  private StaticQkvAccuracyBench() {
  }

  public static void main(String[] args) throws java.io.IOException {
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 8;
    int length = args.length > 1 ? Integer.parseInt(args[1]) : 64;
    String format = args.length > 2 ? args[2] : "int8";
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    System.out.printf(Locale.ROOT, "held-out: %d sequences x %d tokens (seed 2000000), %s, --fusion full%n", count,
        length, format);
    for (boolean gate : new boolean[] {false, true}) {
      MachineParams m = NpuTargets.defaultNpu().withPpmGate(gate);
      String name = gate ? "full+gate" : "full";
      List<LogitComparison> dynamic = IntegerPathAccuracy.perSequence(w, format, m, count, length, 2_000_000L,
          Fusion.FULL, false);
      List<LogitComparison> fixed = IntegerPathAccuracy.perSequence(w, format, m, count, length, 2_000_000L,
          Fusion.FULL, true);
      System.out.printf(Locale.ROOT, "%n%s: per sequence, top-1 / KL (nats)%n", name);
      System.out.println("| sequence | dynamic q/k/v | static q/k/v | KL static - dynamic |");
      System.out.println("|---:|---:|---:|---:|");
      for (int s = 0; s < count; s++) {
        LogitComparison d = dynamic.get(s);
        LogitComparison f = fixed.get(s);
        System.out.printf(Locale.ROOT, "| %d | %.4f / %.5f | %.4f / %.5f | %+.5f |%n", s, d.top1Agreement(),
            d.klDivergence(), f.top1Agreement(), f.klDivergence(), f.klDivergence() - d.klDivergence());
      }
      System.out.printf(Locale.ROOT, "%s pooled (%d positions): dynamic top-1 %.4f KL %.5f; static top-1 %.4f KL %.5f%n",
          name, count * length, mean(dynamic, true), mean(dynamic, false), mean(fixed, true), mean(fixed, false));
      System.out.printf(Locale.ROOT, "%s per-sequence KL, dynamic: %s; static: %s%n", name, spread(dynamic, false),
          spread(fixed, false));
      System.out.printf(Locale.ROOT, "%s paired static - dynamic: KL %s; top-1 %s%n", name,
          paired(dynamic, fixed, false), paired(dynamic, fixed, true));
    }
  }

  private static double value(LogitComparison c, boolean top1) {
    return top1 ? c.top1Agreement() : c.klDivergence();
  }

  /** The pooled figure: every sequence has the same number of positions, so the mean of the sequences'. */
  private static double mean(List<LogitComparison> cs, boolean top1) {
    return cs.stream().mapToDouble(c -> value(c, top1)).average().orElse(Double.NaN);
  }

  private static String spread(List<LogitComparison> cs, boolean top1) {
    double[] v = cs.stream().mapToDouble(c -> value(c, top1)).toArray();
    return String.format(Locale.ROOT, "min %.5f max %.5f sd %.5f", java.util.Arrays.stream(v).min().orElse(0),
        java.util.Arrays.stream(v).max().orElse(0), sd(v));
  }

  private static String paired(List<LogitComparison> base, List<LogitComparison> other, boolean top1) {
    List<Double> d = new ArrayList<>();
    for (int s = 0; s < base.size(); s++) {
      d.add(value(other.get(s), top1) - value(base.get(s), top1));
    }
    double[] v = d.stream().mapToDouble(Double::doubleValue).toArray();
    double mean = java.util.Arrays.stream(v).average().orElse(Double.NaN);
    double half = tQuantile975(v.length - 1) * sd(v) / Math.sqrt(v.length);
    return String.format(Locale.ROOT, "mean %+.5f sd %.5f 95%% CI [%+.5f, %+.5f]", mean, sd(v), mean - half,
        mean + half);
  }

  /** Sample standard deviation (n − 1). */
  private static double sd(double[] v) {
    double mean = java.util.Arrays.stream(v).average().orElse(0);
    double ss = java.util.Arrays.stream(v).map(x -> (x - mean) * (x - mean)).sum();
    return v.length < 2 ? Double.NaN : Math.sqrt(ss / (v.length - 1));
  }

  /**
   * Student's t 0.975 quantile with {@code df} degrees of freedom by the Cornish–Fisher expansion around the normal
   * quantile 1.95996 (df 7: 2.357 against the exact 2.365; the error falls as df grows).
   */
  static double tQuantile975(int df) {
    double z = 1.959964;
    double z3 = z * z * z;
    double z5 = z3 * z * z;
    return z + (z3 + z) / (4.0 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96.0 * df * df)
        + (3 * z5 * z * z + 19 * z5 + 17 * z3 - 15 * z) / (384.0 * df * df * df);
  }
}
