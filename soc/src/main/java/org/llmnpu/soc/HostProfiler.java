package org.llmnpu.soc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.llmnpu.sw.io.Llama2cCheckpoint;
import org.llmnpu.sw.model.LayerWeights;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Ops;

/**
 * The {@code host} CPU, measured: the software stack's FP32 executor kernels ({@link Ops}) timed one operator at a
 * time on the real stories260K weights, on the machine this runs on. Each operator is run in batches long enough
 * for the timer (at least {@value #BATCH_NS} ns), after a first pass over every operator (JIT warm-up); its time
 * per call is the fastest batch of {@value #BATCHES} (the one least disturbed by other processes on a shared
 * machine). The roofline of the {@code host} preset is fitted to these: the FP32 peak is the best measured
 * matrix-vector throughput, the bandwidth the best measured weight-streaming rate, the launch overhead the time
 * of the smallest call (a one-element RMSNorm). Energy is not measurable here (no power meter): the host preset
 * takes the sd8gen3 CPU's energy figures and says so.
 */
public final class HostProfiler {
  static final long BATCH_NS = 2_000_000;
  static final int BATCHES = 15;
  private static HostProfile cached;
  /** Keeps every result alive so that the JIT cannot drop the timed work. */
  static volatile Object sink;

  private HostProfiler() {
  }

  /** One measured operator: its FP32 operations and bytes per call and its seconds per call (the fastest batch). */
  public record Measured(String name, double flops, double bytes, double seconds) {
  }

  /** The measurements and the roofline fitted to them. */
  public record HostProfile(List<Measured> operators, double launchS) {
    /** The {@code host} CPU as a roofline, every figure marked measured (energy: borrowed, said so). */
    public RooflineSpec asRoofline() {
      double flops = 0;
      double bandwidth = 0;
      for (Measured m : operators) {
        if (m.name().startsWith("matvec")) {
          flops = Math.max(flops, m.flops() / m.seconds());
          bandwidth = Math.max(bandwidth, m.bytes() / m.seconds());
        }
      }
      RooflineSpec sd = SocPreset.fromResource("sd8gen3").cpu();
      String borrowed = "not measurable here (no power meter): the sd8gen3 CPU figure (";
      return new RooflineSpec("cpu", "fp32", "fp32",
          Map.of("fp32", Cited.measured(flops / 1e9, "GFLOP/s", "best FP32 matvec throughput of Ops.matvec on "
              + "stories260K weights")),
          Cited.measured(bandwidth / 1e9, "GB/s", "best FP32 weight-streaming rate of Ops.matvec"),
          Cited.measured(launchS * 1e6, "us", "fastest call of a one-element Ops.rmsNorm"),
          new Cited(sd.pjPerOp().value(), "pJ", borrowed + sd.pjPerOp().source() + ")"),
          new Cited(sd.pjPerByte().value(), "pJ/B", borrowed + sd.pjPerByte().source() + ")"),
          new Cited(sd.activeW().value(), "W", borrowed + sd.activeW().source() + ")"));
    }
  }

  /** Measures once per JVM (the figures are of this machine, not of the call). */
  public static synchronized HostProfile measure() {
    if (cached == null) {
      cached = run();
    }
    return cached;
  }

  static HostProfile run() {
    ModelWeights w;
    try {
      w = Llama2cCheckpoint.readBundled("stories260K");
    } catch (IOException e) {
      throw new UncheckedIOException("stories260K cannot be read: " + e.getMessage(), e);
    }
    ModelConfig c = w.config();
    LayerWeights l = w.layers()[0];
    float[] x = Arrays.copyOf(w.tokenEmbedding()[1], c.dim());
    float[] h = new float[c.hiddenDim()];
    Arrays.fill(h, 0.5f);
    List<Timed> ops = new ArrayList<>();
    ops.add(new Timed("rmsnorm", 4.0 * c.dim(), 8.0 * c.dim(), i -> Ops.rmsNorm(x, l.attnNorm(), c.normEps())));
    ops.add(new Timed("softmax", 5.0 * c.maxSeqLen(), 8.0 * c.maxSeqLen(), i -> {
      float[] s = Arrays.copyOf(h, Math.min(h.length, c.maxSeqLen()));
      Ops.softmax(s, s.length);
      return s;
    }));
    ops.add(matvec("matvec_wq", l.wq(), x));
    ops.add(matvec("matvec_w1", l.w1(), x));
    ops.add(matvec("matvec_w2", l.w2(), h));
    ops.add(matvec("matvec_lm_head", w.lmHead(), x));
    float[] one = {1f};
    float[] gain = {1f};
    ops.add(new Timed("call", 1, 8, i -> Ops.rmsNorm(one, gain, 1e-5f)));
    // a first pass over every operator lets the JIT compile the kernels; the second pass is the measurement
    List<Measured> out = new ArrayList<>();
    for (int pass = 0; pass < 2; pass++) {
      out.clear();
      for (Timed t : ops) {
        out.add(time(t.name(), t.flops(), t.bytes(), t.body()));
      }
    }
    double launch = out.remove(out.size() - 1).seconds();
    return new HostProfile(List.copyOf(out), launch);
  }

  /** An operator to time: its work per call and the call. */
  private record Timed(String name, double flops, double bytes, IntFunction<Object> body) {
  }

  private static Timed matvec(String name, float[][] wm, float[] x) {
    double flops = 2.0 * wm.length * wm[0].length;
    double bytes = 4.0 * wm.length * wm[0].length + 4.0 * (x.length + wm.length);
    float[] out = new float[wm.length];
    return new Timed(name, flops, bytes, i -> {
      Ops.matvec(wm, x, out);
      return out;
    });
  }

  /** Seconds per call of {@code body}: the fastest over {@link #BATCHES} batches of at least {@link #BATCH_NS} ns. */
  static Measured time(String name, double flops, double bytes, IntFunction<Object> body) {
    long calls = 1;
    while (true) {
      long t0 = System.nanoTime();
      for (int i = 0; i < calls; i++) {
        sink = body.apply(i);
      }
      if (System.nanoTime() - t0 >= BATCH_NS) {
        break;
      }
      calls *= 2;
    }
    double[] perCall = new double[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
      long t0 = System.nanoTime();
      for (int i = 0; i < calls; i++) {
        sink = body.apply(i);
      }
      perCall[b] = (System.nanoTime() - t0) / 1e9 / calls;
    }
    Arrays.sort(perCall);
    return new Measured(name, flops, bytes, perCall[0]);
  }
}
