package org.llmnpu.cli.soc;

import java.util.concurrent.Callable;
import org.llmnpu.soc.HeteroPlan;
import org.llmnpu.soc.PartitionOutput;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code npu soc partition}: HeteroInfer's GPU-NPU plan (seed 002) on our SoC model ({@link HeteroPlan}). */
@Command(name = "partition", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Plan GPU-NPU co-execution per matrix-product shape (GPU-only, NPU-only, weight-centric, "
        + "activation-centric, multi-tensor, hybrid; order swap; fast sync) and print the plan with its speedups "
        + "over the best single backend and the baselines (CPU-, GPU-, NPU-only, layer-level split).")
public final class SocPartitionCommand implements Callable<Integer> {
  @Option(names = "--preset", defaultValue = "sd8gen3", description = "sd8gen3 or lunar-lake (default "
      + "${DEFAULT-VALUE})")
  String preset;
  @Option(names = "--model", required = true, description = "llama-3-8b, qwen2.5-1.5b, llama-3.2-3b, llama-3.1-8b, "
      + "llama-2-7b, stories260K, or a directory holding a Hugging Face config.json")
  String model;
  @Option(names = "--prompt-len", defaultValue = "300", description = "prompt tokens (default ${DEFAULT-VALUE})")
  int promptLen;
  @Option(names = "--sync", defaultValue = "fast", description = "fast (predicted wait, then polling) or driver "
      + "(sleep-based wait) (default ${DEFAULT-VALUE})")
  String sync;
  @Mixin
  NpuLoweringOptions lowering;
  @Mixin
  SocNpuOptions npu;
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    return SocRun.print(spec, "partition", () -> {
      HeteroPlan.Result r = HeteroPlan.run(new HeteroPlan.Options(preset, model, promptLen, lowering.quant,
          lowering.fusion, sync, npu.npu()));
      return lowering.json ? PartitionOutput.json(r) : PartitionOutput.text(r);
    });
  }
}
