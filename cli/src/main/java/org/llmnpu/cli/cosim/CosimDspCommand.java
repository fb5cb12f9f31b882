package org.llmnpu.cli.cosim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.llmnpu.cosim.blocks.DspCosimRun;
import org.llmnpu.cosim.blocks.DspModelInputs;
import org.llmnpu.cosim.WaveCapture;
import org.llmnpu.isa.dsp.DspCycleFormula;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspLayout;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code npu cosim dsp --kernel K --len N [--lanes L]}: compiles kernel K for the Vector DSP, runs
 * it on the {@code vector-dsp} RTL in Verilator, and prints bit-exactness against the numerics
 * golden kernel, the max error in FP16 ULPs against double precision (with the stated bound),
 * and the cycles counted by the RTL against {@link DspCycleFormula}.
 */
@Command(name = "dsp", mixinStandardHelpOptions = true,
    description = "One Vector DSP kernel on the RTL vs the golden kernel: bit-exactness, ULP error vs double, cycles vs formula.")
public final class CosimDspCommand implements Callable<Integer> {
  @Option(names = "--kernel", required = true, description = "Kernel: softmax, rmsnorm, layernorm, silu, gelu, swiglu, "
      + "residual, rope, exp, reciprocal, rsqrt, max or sum.")
  String kernel;
  @Option(names = "--len", description = "Vector length (head dimension for rope, even), 1..65536 (default 128; "
      + "with --inputs model the model decides it).")
  Integer lenOption;
  @Option(names = "--inputs", defaultValue = "random", description = "random (seeded, LLM-like distributions) or model "
      + "(activations recorded from a forward pass of the software stack's model) (default ${DEFAULT-VALUE}).")
  String inputs;
  @Option(names = "--model", defaultValue = "stories260K", description = "With --inputs model: stories260K (the trained model shipped), or the synthetic tiny or medium (default ${DEFAULT-VALUE}).")
  String modelName;
  @Option(names = "--prompt-len", defaultValue = "128", description = "With --inputs model: prompt tokens, 1..4096; the "
      + "softmax length (default ${DEFAULT-VALUE}).")
  int promptLen;
  @Option(names = "--layer", defaultValue = "1", description = "With --inputs model: the decoder layer recorded (default ${DEFAULT-VALUE}).")
  int layer;
  @Option(names = "--lanes", defaultValue = "8", description = "SIMD lanes: 1, 2, 4, 8, 16, 32 or 64 (default ${DEFAULT-VALUE}).")
  int lanes;
  @Option(names = "--stages", defaultValue = "4", description = "Execute stages of the DSP, 1..4 (default "
      + "${DEFAULT-VALUE}, as vector-dsp and the NPU: the depth that meets the 5.75 ns target clock); with 2..4 the "
      + "kernel is compiled interleaved for the pipeline.")
  int stages;
  @Option(names = "--eps", defaultValue = "1e-5", description = "Epsilon of rmsnorm/layernorm, > 0 (default ${DEFAULT-VALUE}).")
  float eps;
  @Option(names = "--seed", defaultValue = "1", description = "Seed of the random inputs (default ${DEFAULT-VALUE}).")
  long seed;
  @Option(names = "--vcd", paramLabel = "FILE", description = "Keep the run's waves (VCD) in FILE, for "
      + "'npu report ppa vector-dsp ... --activity-vcd FILE' (power from this run's switching activity).")
  java.nio.file.Path vcd;
  @Option(names = "--json", description = "Print one JSON object instead of text.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    DspKernel k;
    DspModelInputs model = null;
    WaveCapture capture;
    int len = lenOption == null ? 128 : lenOption;
    try {
      k = DspKernel.byName(kernel);
      if (!inputs.equals("random") && !inputs.equals("model")) {
        throw new IllegalArgumentException("--inputs: '" + inputs + "' is not allowed; allowed: random, model");
      }
      if (inputs.equals("model")) {
        if (lenOption != null) {
          throw new IllegalArgumentException("--len: not allowed with --inputs model (the model decides the length)");
        }
        if (promptLen < 1 || promptLen > 4096) {
          throw new IllegalArgumentException("--prompt-len: " + promptLen + " is not allowed; allowed: 1..4096");
        }
        try {
          model = DspModelInputs.of(k, modelName, promptLen, layer, seed);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(e.getMessage().replace("model must be", "--model must be")
              .replace("layer must be", "--layer must be"));
        }
        len = model.len();
        eps = model.eps();
      }
      if (len < 1 || len > 65536) {
        throw new IllegalArgumentException("--len: " + len + " is not allowed; allowed: 1..65536");
      }
      if (lanes < 1 || lanes > 64 || Integer.bitCount(lanes) != 1) {
        throw new IllegalArgumentException("--lanes: " + lanes + " is not allowed; allowed: 1, 2, 4, 8, 16, 32, 64");
      }
      if (stages < 1 || stages > 4) {
        throw new IllegalArgumentException("--stages: " + stages + " is not allowed; allowed: 1, 2, 3, 4");
      }
      if (!(eps > 0) || Float.isInfinite(eps)) {
        throw new IllegalArgumentException("--eps: " + eps + " is not allowed; allowed: finite and > 0");
      }
      k.checkLength(len);
      DspLayout layout = new DspLayout(k, len, lanes);
      if (layout.totalRows() > 65536 || layout.inputRows() > 65535) {
        throw new IllegalArgumentException("--len: " + k.cliName() + " at len " + len + " on " + lanes + " lanes needs "
            + layout.totalRows() + " buffer rows (at most 65536) and " + layout.inputRows()
            + " loop iterations (at most 65535); use a smaller --len or more --lanes");
      }
      capture = WaveCapture.to(vcd);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage().replace("kernel must be", "--kernel must be").replace("len must be", "--len must be"));
      return 2;
    }
    long t0 = System.nanoTime();
    DspCosimRun.Outcome o = model == null ? DspCosimRun.run(k, len, lanes, stages, eps, seed, capture)
        : DspCosimRun.run(k, len, lanes, stages, eps, model.operands(), model.software(), capture);
    double seconds = (System.nanoTime() - t0) / 1e9;
    java.nio.file.Path waves = capture.keep();
    String reportCommand = waves == null ? null : String.format(Locale.ROOT,
        "./npu report ppa vector-dsp -p lanes=%d -p rows=%d -p executeStages=%d --activity-vcd %s -o <dir>", lanes,
        o.rows(), stages, waves);
    boolean exact = o.mismatches() == 0;
    boolean cyclesMatch = o.rtlCycles() == o.formulaCycles();
    String formula = o.formula();
    if (json) {
      ObjectMapper om = new ObjectMapper();
      ObjectNode j = om.createObjectNode();
      j.put("kernel", k.cliName()).put("len", len).put("lanes", lanes).put("executeStages", stages).put("seed", seed)
          .put("inputs", inputs);
      if (model != null) {
        j.put("recorded", model.description());
      }
      if (k.usesEps()) {
        j.put("eps", eps);
      }
      j.put("outputs", o.outputs()).put("mismatches", o.mismatches()).put("bitExact", exact)
          .put("maxUlpErrorVsDouble", o.maxUlp());
      if (!Double.isNaN(o.bound())) {
        j.put("ulpBound", o.bound());
      }
      if (!Double.isNaN(o.maxUlpVsSoftware())) {
        j.put("maxUlpErrorVsSoftwareFp32", o.maxUlpVsSoftware());
      }
      j.put("rtlCycles", o.rtlCycles()).put("formulaCycles", o.formulaCycles()).put("cycleFormula", formula)
          .put("instructions", o.instructions()).put("bufferRows", o.rows()).put("seconds", seconds);
      if (waves != null) {
        j.put("vcd", waves.toString()).put("powerCommand", reportCommand);
      }
      System.out.println(org.llmnpu.reports.JsonOutput.compact(j));
    } else {
      System.out.printf(Locale.ROOT, "vector-dsp %s, len %d, %d lanes, %d execute stage%s, seed %d: RTL (Verilator) vs "
          + "org.llmnpu.numerics.vector%n", k.cliName(), len, lanes, stages, stages == 1 ? "" : "s", seed);
      if (model != null) {
        System.out.printf(Locale.ROOT, "  inputs: %s%n", model.description());
      }
      System.out.printf(Locale.ROOT, "  bit-exact with the golden kernel: %s (%d outputs)%n",
          exact ? "yes" : "NO (" + o.mismatches() + " mismatches)", o.outputs());
      System.out.printf(Locale.ROOT, "  max error vs double precision: %.3g ULP%s%n", o.maxUlp(),
          Double.isNaN(o.bound()) ? "" : String.format(Locale.ROOT, " (stated bound %.3g ULP)", o.bound()));
      if (!Double.isNaN(o.maxUlpVsSoftware())) {
        System.out.printf(Locale.ROOT, "  max error vs the software stack's FP32 result: %.3g FP16 ULP%n", o.maxUlpVsSoftware());
      }
      System.out.printf(Locale.ROOT, "  cycles: %d on the RTL, %d by the formula %s%s%n", o.rtlCycles(), o.formulaCycles(),
          formula, cyclesMatch ? "" : "  MISMATCH");
      System.out.printf(Locale.ROOT, "  program: %d instructions; buffer: %d rows of %d FP16 (%.1f s)%n", o.instructions(),
          o.rows(), lanes, seconds);
      if (waves != null) {
        System.out.printf(Locale.ROOT, "  waves (VCD): %s; power of this run: %s%n", waves, reportCommand);
      }
    }
    return exact && cyclesMatch ? 0 : 1;
  }
}
