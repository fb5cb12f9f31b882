package org.llmnpu.cli.cosim;

import picocli.CommandLine.Command;

/** {@code npu cosim ...}: run NPU blocks in Verilator against the golden models. */
@Command(name = "cosim", description = "Run NPU blocks in Verilator against the golden models.",
    mixinStandardHelpOptions = true, subcommands = {CosimGemmCommand.class, CosimMxCommand.class, CosimDspCommand.class,
        CosimProgramCommand.class, CosimPimCommand.class, CosimDecoderCommand.class})
public final class CosimCommand {
}
