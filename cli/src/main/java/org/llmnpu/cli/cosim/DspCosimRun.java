package org.llmnpu.cli.cosim;

import java.util.Random;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.fp16.Fp16;
import org.llmnpu.numerics.vector.Activations;
import org.llmnpu.numerics.vector.ElementWise;
import org.llmnpu.numerics.vector.Fp16Math;
import org.llmnpu.numerics.vector.KernelReference;
import org.llmnpu.numerics.vector.Norms;
import org.llmnpu.numerics.vector.Reduction;
import org.llmnpu.numerics.vector.Softmax;
import org.llmnpu.numerics.vector.VectorConfig;
import org.llmnpu.rtl.dsp.DspCycleFormula;
import org.llmnpu.rtl.dsp.DspKernel;
import org.llmnpu.rtl.dsp.DspLayout;
import org.llmnpu.rtl.dsp.DspMath;
import org.llmnpu.rtl.dsp.VectorDsp;
import org.llmnpu.rtl.dsp.VectorDspDriver;
import org.llmnpu.verilator.SimOptions;
import org.llmnpu.verilator.Simulators;

/**
 * One co-simulated DSP kernel: inputs from a seed (LLM-like: logits N(0, 4²) for SoftMax, activations N(0, 1.5²) with outlier channels for the norms, γ ≈ 1, β ≈ 0,
 * RoPE tables of a position), the {@link VectorDsp} in Verilator, the golden kernel of
 * {@code org.llmnpu.numerics.vector} and the double-precision {@link KernelReference}.
 */
final class DspCosimRun {
  /** What the command prints; {@code bound} is the kernel's stated ULP bound (NaN where none is stated). */
  record Outcome(int outputs, int mismatches, double maxUlp, double bound, long rtlCycles, long formulaCycles,
      int instructions, int rows) {
  }

  private DspCosimRun() {
  }

  static Outcome run(DspKernel kernel, int len, int lanes, float eps, long seed) {
    short[][] in = inputs(kernel, len, new Random(seed));
    DspLayout layout = new DspLayout(kernel, len, lanes);
    int rows = Math.max(16, Integer.highestOneBit(Math.max(1, layout.totalRows() - 1)) * 2);
    VectorDsp.Config config = new VectorDsp.Config(lanes, rows, 256);
    VectorDspDriver.Run run;
    try (Simulator sim = Simulators.start(Verilog.emit(new VectorDsp(config)), SimOptions.fromEnvironment())) {
      run = new VectorDspDriver(sim, config, DspMath.DEFAULT).run(kernel, len, eps, DspMath.DEFAULT, in);
    }
    short[][] want = golden(kernel, in, eps, new VectorConfig(lanes));
    int mismatches = 0;
    int outputs = 0;
    for (int op = 0; op < want.length; op++) {
      for (int i = 0; i < want[op].length; i++) {
        outputs++;
        if (want[op][i] != run.outputs()[op][i]) {
          mismatches++;
        }
      }
    }
    double maxUlp = error(kernel, in, run.outputs(), eps);
    return new Outcome(outputs, mismatches, maxUlp, bound(kernel), run.cycles(),
        DspCycleFormula.cycles(kernel, len, lanes), run.instructions(), rows);
  }

  static short[][] inputs(DspKernel kernel, int len, Random rnd) {
    int n = kernel.inputLength(len);
    short[][] in = new short[kernel.inputs().size()][n];
    for (int i = 0; i < n; i++) {
      switch (kernel) {
        case SOFTMAX -> in[0][i] = gauss(rnd, 0, 4);
        case RMSNORM, LAYERNORM -> {
          in[0][i] = gauss(rnd, 0.2, i % 16 == 3 ? 20 : 1.5);
          in[1][i] = gauss(rnd, 1, 0.2);
          if (kernel == DspKernel.LAYERNORM) {
            in[2][i] = gauss(rnd, 0, 0.1);
          }
        }
        case EXP -> in[0][i] = Fp16.fromDouble(-18 + 30 * rnd.nextDouble());
        case RECIPROCAL, RSQRT -> in[0][i] = Fp16.fromDouble((kernel == DspKernel.RECIPROCAL && rnd.nextBoolean() ? -1 : 1)
            * Math.pow(2, -20 + 35 * rnd.nextDouble()));
        case ROPE -> {
          in[0][i] = gauss(rnd, 0, 1);
          in[1][i] = gauss(rnd, 0, 1);
        }
        default -> {
          for (int op = 0; op < in.length; op++) {
            in[op][i] = gauss(rnd, 0, 3);
          }
        }
      }
    }
    if (kernel == DspKernel.ROPE) {
      short[][] t = ElementWise.ropeTables(1 + rnd.nextInt(4096), 2 * n, 10000);
      in[2] = t[0];
      in[3] = t[1];
    }
    return in;
  }

  private static short gauss(Random rnd, double mean, double sigma) {
    return Fp16.fromDouble(mean + sigma * rnd.nextGaussian());
  }

  static short[][] golden(DspKernel kernel, short[][] in, float eps, VectorConfig c) {
    return switch (kernel) {
      case SOFTMAX -> new short[][] {Softmax.softmax(in[0], c)};
      case RMSNORM -> new short[][] {Norms.rmsNorm(in[0], in[1], eps, c)};
      case LAYERNORM -> new short[][] {Norms.layerNorm(in[0], in[1], in[2], eps, c)};
      case SILU -> new short[][] {Activations.silu(in[0])};
      case GELU -> new short[][] {Activations.gelu(in[0])};
      case SWIGLU -> new short[][] {Activations.swiglu(in[0], in[1])};
      case RESIDUAL -> new short[][] {ElementWise.residualAdd(in[0], in[1])};
      case ROPE -> splitHalves(ElementWise.rope(concat(in[0], in[1]), in[2], in[3]));
      case EXP -> new short[][] {map(in[0], Fp16Math::exp)};
      case RECIPROCAL -> new short[][] {map(in[0], Fp16Math::reciprocal)};
      case RSQRT -> new short[][] {map(in[0], Fp16Math::rsqrt)};
      case MAX -> new short[][] {{Reduction.max(in[0], c)}};
      case SUM -> new short[][] {{Fp16.fromFloat(Reduction.sum(in[0], c))}};
    };
  }

  /** Max error of the RTL outputs against double precision, in the metric of the kernel's bound. */
  static double error(DspKernel kernel, short[][] in, short[][] got, float eps) {
    double[][] x = new double[in.length][];
    for (int op = 0; op < in.length; op++) {
      x[op] = KernelReference.toDouble(in[op]);
    }
    return switch (kernel) {
      case SOFTMAX -> KernelReference.maxUlp(got[0], KernelReference.softmax(x[0]));
      case RMSNORM -> KernelReference.maxUlp(got[0], KernelReference.rmsNorm(x[0], x[1], eps));
      case LAYERNORM -> KernelReference.maxUlpWithRowFloor(got[0], KernelReference.layerNorm(x[0], x[1], x[2], eps));
      case SILU -> KernelReference.maxUlp(got[0], map(x[0], KernelReference::silu));
      case GELU -> KernelReference.maxUlp(got[0], map(x[0], Activations::geluTanhReference));
      case SWIGLU -> {
        double[] ref = new double[x[0].length];
        for (int i = 0; i < ref.length; i++) {
          ref[i] = KernelReference.silu(x[0][i]) * x[1][i];
        }
        yield KernelReference.maxUlp(got[0], ref);
      }
      case RESIDUAL -> {
        double[] ref = new double[x[0].length];
        for (int i = 0; i < ref.length; i++) {
          ref[i] = x[0][i] + x[1][i];
        }
        yield KernelReference.maxUlp(got[0], ref);
      }
      case ROPE -> {
        double[] ref = KernelReference.rope(concat(x[0], x[1]), x[2], x[3]);
        yield KernelReference.maxUlp(concat(got[0], got[1]), ref);
      }
      case EXP -> KernelReference.maxUlp(got[0], map(x[0], Math::exp));
      case RECIPROCAL -> KernelReference.maxUlp(got[0], map(x[0], v -> 1 / v));
      case RSQRT -> KernelReference.maxUlp(got[0], map(x[0], v -> 1 / Math.sqrt(v)));
      case MAX -> KernelReference.maxUlp(got[0], new double[] {java.util.Arrays.stream(x[0]).max().orElseThrow()});
      case SUM -> KernelReference.maxUlp(got[0], new double[] {java.util.Arrays.stream(x[0]).sum()});
    };
  }

  /** The ULP bound the golden kernel's Javadoc states (NaN for the sum, whose bound depends on cancellation). */
  static double bound(DspKernel kernel) {
    return switch (kernel) {
      case SOFTMAX -> Softmax.ULP_BOUND;
      case RMSNORM -> Norms.RMS_ULP_BOUND;
      case LAYERNORM -> Norms.LAYER_ULP_BOUND + 0.5;
      case SILU -> Activations.SILU_ULP_BOUND;
      case GELU -> Activations.GELU_ULP_BOUND;
      case SWIGLU -> Activations.SWIGLU_ULP_BOUND;
      case RESIDUAL -> 0.5;
      case ROPE -> ElementWise.ROPE_ULP_BOUND;
      case EXP -> Fp16Math.EXP_ULP_BOUND;
      case RECIPROCAL -> Fp16Math.RECIPROCAL_ULP_BOUND;
      case RSQRT -> Fp16Math.RSQRT_ULP_BOUND;
      case MAX -> 0;
      case SUM -> Double.NaN;
    };
  }

  private static short[] map(short[] x, java.util.function.UnaryOperator<Short> f) {
    short[] y = new short[x.length];
    for (int i = 0; i < x.length; i++) {
      y[i] = f.apply(x[i]);
    }
    return y;
  }

  private static double[] map(double[] x, java.util.function.DoubleUnaryOperator f) {
    double[] y = new double[x.length];
    for (int i = 0; i < x.length; i++) {
      y[i] = f.applyAsDouble(x[i]);
    }
    return y;
  }

  private static short[] concat(short[] a, short[] b) {
    short[] c = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }

  private static double[] concat(double[] a, double[] b) {
    double[] c = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }

  private static short[][] splitHalves(short[] y) {
    int half = y.length / 2;
    return new short[][] {java.util.Arrays.copyOf(y, half), java.util.Arrays.copyOfRange(y, half, y.length)};
  }
}
