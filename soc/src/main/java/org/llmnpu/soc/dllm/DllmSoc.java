package org.llmnpu.soc.dllm;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.soc.HostCosts;
import org.llmnpu.soc.RooflineSpec;
import org.llmnpu.soc.SocPreset;
import org.llmnpu.reports.estimate.EstimateTarget;
import org.llmnpu.sw.dllm.DenoiserProgram;
import org.llmnpu.sw.dllm.DiffusionDecoder;
import org.llmnpu.sw.dllm.PassLayout;
import org.llmnpu.sw.model.ModelConfig;

/**
 * Diffusion decoding's time on the SoC model: a decode's steps ({@link DiffusionDecoder.Trace}) replayed on our NPU
 * (the preset's NPU on {@code npu-isa}'s RTL-validated cycle model) and the CPU roofline, for a model shape (the
 * decoded model's, or a larger one's: the schedule is the model's rows and contexts, the cost the shape's).
 *
 * <p>An NPU pass of {@code r} rows over {@code c} keys ({@link #npuPassS}): the {@link DenoiserProgram}'s GEMM cycles
 * plus its Vector DSP cycles, at the NPU's clock, plus the host's submission. Host staging around it
 * ({@link #stagingS}): with the <b>swap-optimized runtime</b> the weights, the KV cache and an activation arena laid
 * out from lifetimes ({@link PassLayout}) stay in the NPU's window, the host writes the pass's input rows and reads
 * its logits rows, and builds the next pass's command stream while the NPU runs (hidden); without it, the host stages
 * every activation buffer of the pass (no lifetime reuse) and the KV the pass reads into the NPU's window before each
 * pass, at its copy bandwidth, and builds the command stream in line. The CPU's revision rows run beside the NPU pass
 * (dual-path: a step takes the longer of the two) on the CPU roofline ({@link #cpuRowsS}). Without prefix KV reuse
 * every pass recomputes the prefix's rows too.
 *
 * <p>Baselines: the autoregressive model of the same shape on the same SoC (one NPU pass of one row per token over
 * the context so far) and the diffusion schedule on the CPU alone (every row on the CPU roofline, prefix KV reused).
 */
public final class DllmSoc {
  /** Which runtime mechanisms are on (the decoding mechanisms are in the trace). */
  public record Runtime(boolean swapOptimized, boolean prefixReuse) {
    public static final Runtime ALL = new Runtime(true, true);
  }

  /** A decode's time: generation seconds on the SoC, NPU busy seconds, and the CPU path's seconds. */
  public record Timing(double totalS, double npuS, double cpuS, double stagingS, int passes) {
  }

  private final MachineParams p;
  private final double clockHz;
  private final RooflineSpec cpu;
  private final HostCosts host;
  private final Map<String, Double> memo = new HashMap<>();

  public DllmSoc(MachineParams p, double clockMhz, RooflineSpec cpu, HostCosts host) {
    this.p = p;
    this.clockHz = clockMhz * 1e6;
    this.cpu = cpu;
    this.host = host;
  }

  /** The model of a SoC preset: its CPU and host costs, its NPU preset on the cycle model. */
  public static DllmSoc of(String presetName) {
    SocPreset preset = SocPreset.load(presetName);
    EstimateTarget npu = EstimateTarget.load(preset.npuPreset(), null);
    return new DllmSoc(npu.npu().machine(), npu.clockMhz(), preset.cpu(), preset.host());
  }

  public MachineParams machine() {
    return p;
  }

  public double clockHz() {
    return clockHz;
  }

  /** Seconds of an NPU pass (GEMM and DSP cycles, submission; the command stream is in {@link #stagingS}). */
  public double npuPassS(ModelConfig c, int rows, int context, int logitRows) {
    String key = c + "/" + rows + "/" + context + "/" + logitRows;
    return memo.computeIfAbsent(key, k -> (DenoiserProgram.gemmCycles(p, c, rows, context, logitRows)
        + DenoiserProgram.dspCycles(p, c, rows, context)) / clockHz + host.submissionUs().value() * 1e-6);
  }

  /** Host seconds around a pass that the NPU waits for (see the class comment). */
  public double stagingS(ModelConfig c, int rows, int context, int logitRows, int length, boolean swapOptimized) {
    double copy = host.copyGBs().value() * 1e9;
    if (swapOptimized) {
      return ((double) rows * c.dim() + 4.0 * logitRows * c.vocabSize()) / copy;
    }
    PassLayout.Layout l = PassLayout.of(c, rows, context, length, p.lineBytes());
    double kvRead = 2.0 * c.layers() * context * c.kvDim();
    return (l.naiveBytes() + kvRead) / copy + host.commandStreamUs().value() * 1e-6;
  }

  /** CPU seconds of {@code rows} denoiser rows over {@code context} keys (its matmul format, one launch a layer). */
  public double cpuRowsS(ModelConfig c, int rows, int context, int logitRows) {
    if (rows == 0) {
      return 0;
    }
    double perRow = 2.0 * c.layers() * (2.0 * c.dim() * c.dim() + 2.0 * c.dim() * c.kvDim()
        + 3.0 * c.dim() * c.hiddenDim() + 2.0 * context * c.dim());
    double ops = rows * perRow + 2.0 * logitRows * c.dim() * c.vocabSize()
        + DenoiserProgram.vectorOps(c, rows, context);
    double weightBytes = c.layers() * (2.0 * c.dim() * c.dim() + 2.0 * c.dim() * c.kvDim()
        + 3.0 * c.dim() * c.hiddenDim()) + (logitRows > 0 ? (double) c.dim() * c.vocabSize() : 0);
    double bytes = weightBytes + 2.0 * c.layers() * context * c.kvDim();
    return Math.max(ops / cpu.opsPerS(cpu.matmulFormat()), bytes / (cpu.bandwidthGBs().value() * 1e9))
        + c.layers() * cpu.launchUs().value() * 1e-6;
  }

  /** The decode's generation time on the SoC (the prompt's prefill, the same for every schedule, left out). */
  public Timing diffusion(ModelConfig c, List<DiffusionDecoder.Step> steps, int length, Runtime rt) {
    double total = 0;
    double npu = 0;
    double cpuPath = 0;
    double staging = 0;
    for (DiffusionDecoder.Step s : steps) {
      int rows = s.npuRows() + (rt.prefixReuse() ? 0 : s.prefix() - s.sealRows());
      int context = s.context();
      double n = npuPassS(c, rows, context, s.logitRows());
      double st = stagingS(c, rows, context, s.logitRows(), length, rt.swapOptimized());
      double side = cpuRowsS(c, s.cpuRows(), context, s.cpuRows());
      total += Math.max(n + st, side);
      npu += n;
      staging += st;
      cpuPath += side;
    }
    return new Timing(total, npu, cpuPath, staging, steps.size());
  }

  /** The same schedule with every row on the CPU (prefix KV reused). */
  public double cpuOnly(ModelConfig c, List<DiffusionDecoder.Step> steps) {
    double total = 0;
    for (DiffusionDecoder.Step s : steps) {
      total += cpuRowsS(c, s.npuRows() + s.cpuRows(), s.context(), s.logitRows());
    }
    return total;
  }

  /** An autoregressive model of the same shape: {@code tokens} NPU passes of one row after a prompt of {@code p0}. */
  public double autoregressive(ModelConfig c, int p0, int tokens) {
    double total = 0;
    for (int t = 0; t < tokens; t++) {
      total += npuPassS(c, 1, p0 + t + 1, 1) + stagingS(c, 1, p0 + t + 1, 1, p0 + tokens, true);
    }
    return total;
  }

  /** The same autoregressive decode on the CPU alone. */
  public double autoregressiveCpu(ModelConfig c, int p0, int tokens) {
    double total = 0;
    for (int t = 0; t < tokens; t++) {
      total += cpuRowsS(c, 1, p0 + t + 1, 1);
    }
    return total;
  }
}
