package org.llmnpu.cli.report;

import picocli.CommandLine.Command;

/** {@code npu report ...}: PPA and energy reports from real synthesis. */
@Command(name = "report", description = "PPA and energy reports from synthesis.", mixinStandardHelpOptions = true,
    subcommands = {PpaCommand.class, EnergyCommand.class, NpuReportCommand.class})
public final class ReportCommand {
}
