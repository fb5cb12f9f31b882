package org.llmnpu.cli.soc;

import picocli.CommandLine.Command;

/** {@code npu soc ...}: our NPU inside a heterogeneous SoC (stage-level analysis, HeteroInfer partitions). */
@Command(name = "soc", mixinStandardHelpOptions = true, description = "Our NPU inside a phone- or laptop-class SoC: "
    + "CPU/GPU roofline backends with cited presets, shared DRAM, stage-level analysis and GPU-NPU partitions.",
    subcommands = {SocAnalyzeCommand.class, SocPartitionCommand.class, SocSpeculativeCommand.class})
public final class SocCommand {
}
