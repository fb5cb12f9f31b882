package org.llmnpu.cli.soc;

import picocli.CommandLine.Option;

/** The NPU lowering's options of the {@code soc} commands: block weight format, fusion level, JSON output. */
public final class NpuLoweringOptions {
  @Option(names = "--quant", defaultValue = "int4", description = "the NPU's block weights: int8, int4, int4-g32, "
      + "s2_4, mxfp8 (default ${DEFAULT-VALUE})")
  String quant;
  @Option(names = "--fusion", defaultValue = "full", description = "the NPU lowering's fusion: none, vertical, "
      + "full; what the NPU or the format cannot fuse runs unfused (default ${DEFAULT-VALUE})")
  String fusion;
  @Option(names = "--json", description = "print JSON instead of text")
  boolean json;
}
