package org.llmnpu.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.llmnpu.reports.estimate.EstimateOutput;
import org.llmnpu.reports.estimate.NpuEstimate;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code npu estimate}: TTFT, TPOT, tokens/s, DRAM bytes per token, utilizations, busy shares and energy per token of
 * an LLM on an NPU preset, from the model's shape through the RTL-validated cycle model ({@link NpuEstimate}).
 */
@Command(name = "estimate", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Estimate LLM inference on an NPU from the model's shape alone (no weights): TTFT, TPOT, tokens/s, "
        + "DRAM bytes per token, prefill MAC and decode bandwidth utilization, each unit's busy share, energy per "
        + "token. Runs the lowering's command sequence through the RTL-validated cycle model.")
public final class EstimateCommand implements Callable<Integer> {
  @Option(names = "--model", required = true, description = "llama-2-7b, llama-3-8b, qwen2.5-1.5b, stories260K, or a "
      + "directory holding a Hugging Face config.json (LLaMA-family shape fields)")
  String model;
  @Option(names = "--preset", defaultValue = "edge-64", description = "the NPU: edge-64 (64x64 array at 1 GHz, 64 "
      + "B/cycle, latency 100 cycles) (default ${DEFAULT-VALUE})")
  String preset;
  @Option(names = "--config", paramLabel = "<file>", description = "NPU parameters (.yaml, .yml, .json; NpuConfig "
      + "field names and clockMhz) overriding the preset's")
  Path config;
  @Option(names = {"-p", "--param"}, paramLabel = "name=value", description = "an NPU parameter (as in npu "
      + "generate npu, and memLatency, memBytesPerCycle), once each, over the preset's and the --config file's")
  java.util.List<String> params = java.util.List.of();
  @Option(names = "--prompt-len", defaultValue = "256", description = "prompt tokens; the decode step is at this "
      + "position (default ${DEFAULT-VALUE})")
  int promptLen;
  @Option(names = "--quant", defaultValue = "int8", description = "block weights: int8, int4, int4-g32, s2_4 "
      + "(2:4-sparse INT8 on an array built for 2:4), mxfp8 (loadmx) (default ${DEFAULT-VALUE})")
  String quant;
  @Option(names = "--fusion", defaultValue = "full", description = "none (the lowering without the fused datapath), "
      + "vertical (+ weights streamed into the array, GEMM epilogue through the PPM) or full (+ attention without "
      + "round trips); what the NPU or the format cannot fuse runs unfused, named with why in the notes "
      + "(default ${DEFAULT-VALUE})")
  String fusion;
  @Option(names = "--qkv-scales", defaultValue = "dynamic", description = "dynamic (each token's absmax) or static "
      + "(calibrated per-tensor q/k/v scales, with the QKV post tile by tile where the NPU allows: the cycles of a "
      + "model whose scales are calibrated; the named shapes have none) (default ${DEFAULT-VALUE})")
  String qkvScales;
  @Option(names = "--bandwidth-gbs", paramLabel = "<GB/s>", description = "external-memory bandwidth replacing the "
      + "preset's: whole bytes per cycle dividing the line")
  String bandwidthGbs;
  @Option(names = "--energy-table", paramLabel = "<energy.json>", description = "energy per action written by npu "
      + "report energy -o DIR; without it no energy is computed")
  Path energyTable;
  @Option(names = "--node", defaultValue = "7", description = "process node of the energy figures: 180, 45 or 7 nm "
      + "(default ${DEFAULT-VALUE})")
  int node;
  @Option(names = "--json", description = "print JSON instead of text")
  boolean json;
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      NpuEstimate e = NpuEstimate.run(new NpuEstimate.Options(model, preset, config, promptLen, quant, fusion,
          bandwidth(), energyTable, node, NpuParameters.parse("npu", params), qkvScales));
      out.print(json ? EstimateOutput.json(e) : EstimateOutput.text(e));
      out.flush();
      return 0;
    } catch (IllegalArgumentException e) {
      err.println("npu estimate: " + e.getMessage());
      err.flush();
      return NpuCommand.USAGE_ERROR;
    }
  }

  private Double bandwidth() {
    if (bandwidthGbs == null) {
      return null;
    }
    try {
      double v = Double.parseDouble(bandwidthGbs);
      if (!(v > 0) || Double.isInfinite(v)) {
        throw new NumberFormatException();
      }
      return v;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--bandwidth-gbs: '" + bandwidthGbs + "' is not a positive number of GB/s");
    }
  }
}
