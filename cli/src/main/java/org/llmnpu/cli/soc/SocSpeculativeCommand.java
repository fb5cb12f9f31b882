package org.llmnpu.cli.soc;

import java.util.concurrent.Callable;
import org.llmnpu.soc.SpeculativeAcrossBackends;
import org.llmnpu.soc.SpeculativeOutput;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code npu soc speculative}: draft on our NPU, verifier on the CPU or GPU ({@link SpeculativeAcrossBackends}). */
@Command(name = "speculative", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Speculative decoding across backends (seed 003): the draft (the target compressed) on our NPU, the "
        + "verifier (8.5-bit target) on the CPU or GPU; acceptance measured on stories260K with the software stack; "
        + "time and energy per generated token against the target alone on each backend.")
public final class SocSpeculativeCommand implements Callable<Integer> {
  @Option(names = "--preset", defaultValue = "sd8gen3", description = "sd8gen3, lunar-lake or host (default "
      + "${DEFAULT-VALUE})")
  String preset;
  @Option(names = "--model", required = true, description = "the target's shape: llama-3-8b, llama-3.2-3b, "
      + "qwen2.5-1.5b, ..., or a directory holding a Hugging Face config.json")
  String model;
  @Option(names = "--prompt-len", defaultValue = "321", description = "position of the decode steps (default "
      + "${DEFAULT-VALUE})")
  int promptLen;
  @Option(names = "--draft", defaultValue = "int4", description = "the draft: int4, int4-g32 or int8 (default "
      + "${DEFAULT-VALUE})")
  String draft;
  @Option(names = "--gamma", defaultValue = "4", description = "draft tokens per pass, 1..16 (default ${DEFAULT-VALUE})")
  int gamma;
  @Option(names = "--measure-tokens", defaultValue = "64", description = "tokens generated on stories260K to measure "
      + "the acceptance (default ${DEFAULT-VALUE})")
  int measureTokens;
  @Option(names = "--json", description = "print JSON instead of text")
  boolean json;
  @Mixin
  SocNpuOptions npu;
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    return SocRun.print(spec, "speculative", () -> {
      SpeculativeAcrossBackends.Result r = SpeculativeAcrossBackends.run(preset, model, promptLen, draft, gamma,
          measureTokens, npu.npu());
      return json ? SpeculativeOutput.json(r) : SpeculativeOutput.text(r);
    });
  }
}
