package org.llmnpu.cli.sw;

import picocli.CommandLine.Command;

/** {@code npu sw ...}: the software stack (model runs, compression evaluation, KV-cache and fusion studies). */
@Command(name = "sw", description = "Run the LLM software stack.", mixinStandardHelpOptions = true,
        subcommands = {SwRunCommand.class, SwEvalCommand.class, SwKvCommand.class, SwPassesCommand.class,
            SwExportCommand.class, SwShadowCommand.class, SwDllmCommand.class})
public final class SwCommand {
}
