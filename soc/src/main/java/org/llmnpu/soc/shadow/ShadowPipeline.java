package org.llmnpu.soc.shadow;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.isa.CycleFormulas;
import org.llmnpu.isa.CycleModel;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.soc.HostCosts;
import org.llmnpu.soc.RooflineSpec;
import org.llmnpu.sw.shadow.EstimationProgram;

/**
 * ShadowNPU's head-wise NPU–CPU pipeline for one layer's attention in a prefill of {@code n} tokens, on the SoC model:
 * per head an NPU estimation (its {@link EstimationProgram}, cycles from {@code npu-isa}'s RTL-validated
 * {@link CycleModel}, plus the host's submission and command-stream costs), a CPU top-{@code k} over its causal INT32
 * scores, and the CPU's FP32 sparse attention over the kept tokens (both on the CPU roofline: one launch each,
 * {@code max(ops / peak, bytes / bandwidth)}). Four schedules, the paper's Fig. (1)–(4):
 * <ol>
 *   <li>{@code serial}: head after head, each stage after the previous;</li>
 *   <li>{@code headwise}: the NPU estimates head after head (a program each) while the CPU works on the heads
 *       already estimated, in head order;</li>
 *   <li>{@code merged}: heads whose estimation uses the same graph (bucket) run as one program (one submission);
 *       the CPU takes a group's heads once its program is done;</li>
 *   <li>{@code outOfOrder}: jobs in the order of Johnson's rule for a two-stage flow shop (jobs whose NPU time is
 *       below their CPU time first, by rising NPU time, then the rest by falling CPU time: the order that minimizes
 *       the makespan of two stages in series), each bucket group merged or split into its heads, chosen greedily
 *       group by group (from all split, a group is merged when that shortens the makespan) — merging saves
 *       submissions but holds the CPU until the whole group is estimated.</li>
 * </ol>
 * Baselines: dense FP32 attention on the CPU ({@code n(n+1)/2} scores, each {@code 4d + 5} FP32 ops) and dense INT8
 * attention on the NPU (one program per layer: {@code Q·Kᵀ} and {@code P·V} programs of the same kind, the softmax
 * on the Vector DSP — its FP16 rows in and out at the copies' rate and 4 operations an element over its lanes).
 */
public final class ShadowPipeline {
  /** One layer's attention: heads, GQA, head dimension, prompt, each head's kept tokens and estimation graph. */
  public record Layer(String model, int heads, int kvHeads, int headDim, int context, int[] keep, int[] graph) {
    public Layer {
      if (keep.length != heads || graph.length != heads) {
        throw new IllegalArgumentException("need a keep count and a graph per head (" + heads + ")");
      }
    }
  }

  /**
   * Latencies of one layer's attention, seconds; the programs a layer head-wise (one a head) and merged (one a
   * bucket group); the stages' sums: NPU estimation a head at a time and merged, CPU top-k, CPU sparse attention.
   */
  public record Result(String model, int context, double serialS, double headwiseS, double mergedS,
                       double outOfOrderS, double denseCpuS, double denseNpuS, int headPrograms, int mergedPrograms,
                       double estimationS, double mergedEstimationS, double topkS, double sparseS) {
    /** Out-of-order pipeline against dense FP32 attention on the CPU. */
    public double speedupVsDenseCpu() {
      return denseCpuS / outOfOrderS;
    }

    /** Out-of-order pipeline against dense INT8 attention on the NPU. */
    public double speedupVsDenseNpu() {
      return denseNpuS / outOfOrderS;
    }
  }

  private final MachineParams p;
  private final double clockHz;
  private final RooflineSpec cpu;
  private final HostCosts host;

  public ShadowPipeline(MachineParams p, double clockMhz, RooflineSpec cpu, HostCosts host) {
    this.p = p;
    this.clockHz = clockMhz * 1e6;
    this.cpu = cpu;
    this.host = host;
  }

  private double submission() {
    return (host.submissionUs().value() + host.commandStreamUs().value()) * 1e-6;
  }

  private double npuS(List<EstimationProgram.Shape> shapes) {
    EstimationProgram.Plan plan = EstimationProgram.plan(p, shapes, false);
    return EstimationProgram.cycles(p, plan.program()) / clockHz + submission();
  }

  private double cpuS(double ops, String format, double bytes) {
    return Math.max(ops / cpu.opsPerS(format), bytes / (cpu.bandwidthGBs().value() * 1e9)) + cpu.launchUs().value() * 1e-6;
  }

  /** Top-k of one head: every causal INT32 score read and compared once. */
  double topkS(int n) {
    double scores = n * (n + 1.0) / 2;
    return cpuS(scores, cpu.vectorFormat(), 4 * scores);
  }

  /** FP32 sparse attention of one head over {@code keep} tokens per query (at most the query's context). */
  double sparseS(int n, int keep, int d) {
    double pairs = 0;
    for (int pos = 0; pos < n; pos++) {
      pairs += Math.min(pos + 1, keep);
    }
    return cpuS(pairs * (4.0 * d + 5), "fp32", 4.0 * n * d * 4);
  }

  public Result run(Layer l) {
    int n = l.context();
    int d = l.headDim();
    int h = l.heads();
    double[] est = new double[h];
    double[] cpuTime = new double[h];
    double estSum = 0;
    double topSum = 0;
    double sparseSum = 0;
    for (int i = 0; i < h; i++) {
      est[i] = npuS(List.of(new EstimationProgram.Shape(n, n, d)));
      double t = topkS(n);
      double s = sparseS(n, l.keep()[i], d);
      cpuTime[i] = t + s;
      estSum += est[i];
      topSum += t;
      sparseSum += s;
    }
    double serial = estSum + topSum + sparseSum;
    double npuFree = 0;
    double cpuFree = 0;
    for (int i = 0; i < h; i++) {
      npuFree += est[i];
      cpuFree = Math.max(cpuFree, npuFree) + cpuTime[i];
    }
    double headwise = cpuFree;
    Map<Integer, List<Integer>> groups = new LinkedHashMap<>();
    for (int i = 0; i < h; i++) {
      groups.computeIfAbsent(l.graph()[i], g -> new ArrayList<>()).add(i);
    }
    List<List<Integer>> groupList = new ArrayList<>(groups.values());
    boolean[] merge = new boolean[groupList.size()];
    java.util.Arrays.fill(merge, true);
    List<double[]> mergedJobs = jobs(groupList, merge, n, d, est, cpuTime);
    double merged = flowShop(mergedJobs);
    double mergedEst = mergedJobs.stream().mapToDouble(j -> j[0]).sum();
    double allMerged = johnson(jobs(groupList, merge, n, d, est, cpuTime));
    java.util.Arrays.fill(merge, false);
    double ooo = johnson(jobs(groupList, merge, n, d, est, cpuTime));
    for (int g = 0; g < merge.length; g++) {
      merge[g] = true;
      double t = johnson(jobs(groupList, merge, n, d, est, cpuTime));
      if (t < ooo) {
        ooo = t;
      } else {
        merge[g] = false;
      }
    }
    ooo = Math.min(ooo, allMerged);
    double pairs = n * (n + 1.0) / 2;
    double denseCpu = h * cpuS(pairs * (4.0 * d + 5), "fp32", 4.0 * n * d * 4);
    return new Result(l.model(), n, serial, headwise, merged, ooo, denseCpu, denseNpuS(l), h,
        groups.size(), estSum, mergedEst, topSum, sparseSum);
  }

  /**
   * Jobs {npu, cpu} of the groups: a merged group is one program (its heads' tasks, one submission) and its heads'
   * CPU work; a split group is a job per head.
   */
  private List<double[]> jobs(List<List<Integer>> groups, boolean[] merge, int n, int d, double[] est, double[] cpu) {
    List<double[]> jobs = new ArrayList<>();
    for (int g = 0; g < groups.size(); g++) {
      if (merge[g]) {
        List<EstimationProgram.Shape> shapes = new ArrayList<>();
        double b = 0;
        for (int i : groups.get(g)) {
          shapes.add(new EstimationProgram.Shape(n, n, d));
          b += cpu[i];
        }
        jobs.add(new double[] {npuS(shapes), b});
      } else {
        for (int i : groups.get(g)) {
          jobs.add(new double[] {est[i], cpu[i]});
        }
      }
    }
    return jobs;
  }

  /**
   * Makespan in the order of Johnson's rule (optimal for two stages in series): jobs whose NPU time is below their
   * CPU time first, by rising NPU time, then the rest by falling CPU time.
   */
  static double johnson(List<double[]> jobs) {
    List<double[]> first = new ArrayList<>(jobs.stream().filter(j -> j[0] < j[1]).toList());
    List<double[]> rest = new ArrayList<>(jobs.stream().filter(j -> j[0] >= j[1]).toList());
    first.sort(Comparator.comparingDouble(j -> j[0]));
    rest.sort(Comparator.comparingDouble((double[] j) -> j[1]).reversed());
    first.addAll(rest);
    return flowShop(first);
  }

  /** Makespan of jobs {npu, cpu} through the NPU then the CPU, in the given order. */
  private static double flowShop(List<double[]> jobs) {
    double a = 0;
    double b = 0;
    for (double[] j : jobs) {
      a += j[0];
      b = Math.max(b, a) + j[1];
    }
    return b;
  }

  /**
   * Dense INT8 attention of a layer on the NPU, one program: per head {@code Q·Kᵀ} ({@code n × n × d}), the softmax
   * on the Vector DSP ({@code n} FP16 rows of {@code n} in and out, 4 operations an element over its lanes) and
   * {@code P·V} ({@code n × n × d}, K in chunks of {@code maxK} whose INT32 partials the DSP adds).
   */
  double denseNpuS(Layer l) {
    int n = l.context();
    int d = l.headDim();
    List<EstimationProgram.Shape> shapes = new ArrayList<>();
    for (int i = 0; i < l.heads(); i++) {
      shapes.add(new EstimationProgram.Shape(n, n, d));
      for (int k0 = 0; k0 < n; k0 += p.maxK()) {
        shapes.add(new EstimationProgram.Shape(n, d, Math.min(p.maxK(), n - k0)));
      }
    }
    long cycles = EstimationProgram.cycles(p, EstimationProgram.plan(p, shapes, false).program());
    long dsp = l.heads() * (2 * CycleFormulas.dspCopyCycles(p, n, n, 2)
        + 4L * n * n / Math.max(1, p.dsp().lanes()));
    return (cycles + dsp) / clockHz + submission();
  }
}
