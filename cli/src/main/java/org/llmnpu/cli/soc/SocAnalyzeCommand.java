package org.llmnpu.cli.soc;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import org.llmnpu.soc.SocOutput;
import org.llmnpu.soc.StageAnalysis;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code npu soc analyze}: the stage-level analysis of seed 001 on our SoC model ({@link StageAnalysis}). */
@Command(name = "analyze", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Per stage (prefill, decode) and backend (cpu, gpu, our NPU as one program a step, our NPU with one "
        + "graph per operator, the per-stage choice): time, energy, call/op ratio, communication and dynamic-"
        + "quantization shares, fallback operators; the end-to-end run; seed 001's findings next to ours.")
public final class SocAnalyzeCommand implements Callable<Integer> {
  @Option(names = "--preset", defaultValue = "sd8gen3", description = "sd8gen3, lunar-lake or host (this machine's "
      + "CPU, measured) (default ${DEFAULT-VALUE})")
  String preset;
  @Option(names = "--model", required = true, description = "llama-3.2-3b, llama-3.1-8b, llama-2-7b, llama-3-8b, "
      + "qwen2.5-1.5b, stories260K, or a directory holding a Hugging Face config.json")
  String model;
  @Option(names = "--prompt-len", defaultValue = "321", description = "prompt tokens (default ${DEFAULT-VALUE})")
  int promptLen;
  @Option(names = "--gen-tokens", defaultValue = "128", description = "decode steps of the end-to-end run "
      + "(default ${DEFAULT-VALUE})")
  int genTokens;
  @Option(names = "--npu", defaultValue = "ours", description = "ours (the NPU runs every operator) or paper (the "
      + "operators the paper's NPU backend lacks fall back to the CPU) (default ${DEFAULT-VALUE})")
  String npuOps;
  @Option(names = "--backends", defaultValue = "cpu,gpu,npu", split = ",", description = "backends present: any of "
      + "cpu, gpu, npu (default ${DEFAULT-VALUE})")
  List<String> backends;
  @Option(names = "--no-shared-buffer", description = "tensors crossing backends are copied (no shared buffers)")
  boolean noSharedBuffer;
  @Option(names = "--no-host-overhead", description = "no submission, dispatch, command-stream or sync cost")
  boolean noHostOverhead;
  @Mixin
  NpuLoweringOptions lowering;
  @Mixin
  SocNpuOptions npu;
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    return SocRun.print(spec, "analyze", () -> {
      StageAnalysis.Result r = StageAnalysis.run(new StageAnalysis.Options(preset, model, promptLen, genTokens,
          lowering.quant, lowering.fusion, npuOps, !noSharedBuffer, !noHostOverhead,
          backends == null ? Arrays.asList("cpu", "gpu", "npu") : backends, npu.npu()));
      return lowering.json ? SocOutput.json(r) : SocOutput.text(r);
    });
  }
}
