package org.llmnpu.cosim.blocks;

import java.util.Random;
import org.llmnpu.cosim.WaveCapture;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.fp16.Fp16;
import org.llmnpu.numerics.vector.ElementWise;
import org.llmnpu.numerics.vector.VectorConfig;
import org.llmnpu.numerics.vector.VectorKernel;
import org.llmnpu.isa.dsp.DspCycleFormula;
import org.llmnpu.isa.dsp.DspKernels;
import org.llmnpu.isa.dsp.DspPipeline;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspLayout;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.rtl.dsp.VectorDsp;
import org.llmnpu.rtl.dsp.VectorDspDriver;
import org.llmnpu.verilator.Simulators;

/**
 * One co-simulated DSP kernel: inputs from a seed (LLM-like: logits N(0, 4²) for SoftMax, activations N(0, 1.5²) with outlier channels for the norms, γ ≈ 1, β ≈ 0,
 * RoPE tables of a position), the {@link VectorDsp} in Verilator, the golden kernel and double-precision reference of
 * {@link VectorKernel}.
 */
public final class DspCosimRun {
  /** What the command prints; {@code bound} is the kernel's stated ULP bound (NaN where none is stated). */
  public record Outcome(int outputs, int mismatches, double maxUlp, double bound, long rtlCycles, long formulaCycles,
      int instructions, int rows, double maxUlpVsSoftware, String formula) {
  }

  private DspCosimRun() {
  }

  /** Random inputs from {@code seed}, on a DSP of {@code stages} execute stages. */
  public static Outcome run(DspKernel kernel, int len, int lanes, int stages, float eps, long seed, WaveCapture waves) {
    return run(kernel, len, lanes, stages, eps, inputs(kernel, len, new Random(seed)), null, waves);
  }

  /**
   * The given FP16 operands; with {@code software} (may be null), also the error against those FP32 outputs. With
   * 2..4 execute stages the kernel is compiled interleaved for the pipeline ({@link DspKernels.Options#forPipeline}),
   * as the NPU's DSP routines are; with 1, plain. {@code waves} says whether the simulation traces.
   */
  public static Outcome run(DspKernel kernel, int len, int lanes, int stages, float eps, short[][] in, float[][] software,
      WaveCapture waves) {
    DspLayout layout = new DspLayout(kernel, len, lanes);
    int rows = Math.max(16, Integer.highestOneBit(Math.max(1, layout.totalRows() - 1)) * 2);
    VectorDsp.Config config = new VectorDsp.Config(lanes, rows, 256, 12, 2, stages);
    DspPipeline pipeline = config.pipeline();
    DspKernels.Options options = stages == 1 ? DspKernels.Options.DEFAULT : DspKernels.Options.forPipeline(pipeline, false);
    VectorDspDriver.Run run;
    try (Simulator sim = Simulators.start(Verilog.emit(new VectorDsp(config)), waves.options())) {
      waves.note(sim);
      run = new VectorDspDriver(sim, config, DspMath.DEFAULT).run(kernel, len, eps, DspMath.DEFAULT, in, options);
    }
    VectorKernel golden = VectorKernel.byName(kernel.cliName());
    short[][] want = golden.golden(in, eps, new VectorConfig(lanes));
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
    double maxUlp = golden.maxUlpError(in, run.outputs(), eps);
    double versusSoftware = software == null ? Double.NaN
        : DspModelInputs.maxUlpVersusSoftware(run.outputs(), software);
    return new Outcome(outputs, mismatches, maxUlp, golden.ulpBound(), run.cycles(),
        DspCycleFormula.cycles(kernel, len, lanes, pipeline, options), run.instructions(), rows, versusSoftware,
        formula(kernel, layout.inputRows(), lanes, pipeline, options));
  }

  /** The cycle formula with its terms: {@code a + b·log2(lanes) + c·rows}, or per K interleaved rows and a tail. */
  public static String formula(DspKernel kernel, int inputRows, int lanes, DspPipeline pipeline, DspKernels.Options options) {
    if (!options.interleave()) {
      int[] abc = DspCycleFormula.coefficients(kernel, pipeline, options);
      return String.format(java.util.Locale.ROOT, "%d + %d*log2(%d) + %d*%d rows", abc[0], abc[1], lanes, abc[2],
          inputRows);
    }
    int[] c = DspCycleFormula.interleavedCoefficients(kernel, pipeline, options);
    int k = c.length - 2;
    int tail = inputRows % k;
    return String.format(java.util.Locale.ROOT, "%d + %d*log2(%d) + %d*%d groups of %d rows", c[0], c[1], lanes, c[2],
        inputRows / k, k) + (tail == 0 ? "" : String.format(java.util.Locale.ROOT, " + %d for the last %d row%s",
        c[2 + tail], tail, tail == 1 ? "" : "s"));
  }

  /** Seeded LLM-like operands of a kernel (see the class comment). */
  public static short[][] inputs(DspKernel kernel, int len, Random rnd) {
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
}
