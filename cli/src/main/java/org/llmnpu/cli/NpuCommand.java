package org.llmnpu.cli;

import org.llmnpu.cli.cosim.CosimCommand;
import org.llmnpu.cli.report.ReportCommand;
import org.llmnpu.cli.soc.SocCommand;
import org.llmnpu.cli.sw.SwCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code npu} command: entry point of the toolkit. */
@Command(name = "npu", mixinStandardHelpOptions = true, version = "llmnpu 0.1.0",
    description = "LLM-NPU co-design toolkit: generate Verilog, co-simulate, report PPA.",
    subcommands = {BlocksCommand.class, GenerateCommand.class, DemoCommand.class, CosimCommand.class,
        SwCommand.class, ReportCommand.class, EstimateCommand.class, SocCommand.class,
        DseCommand.class})
public final class NpuCommand implements Runnable {
  /** Exit status for bad parameters or configuration. */
  public static final int USAGE_ERROR = 2;

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  /** Runs the command line and returns the exit status. */
  public static int execute(String... args) {
    CommandLine cl = new CommandLine(new NpuCommand());
    cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
      if (ex instanceof IllegalArgumentException) {
        cmd.getErr().println("error: " + ex.getMessage());
        return USAGE_ERROR;
      }
      cmd.getErr().println("error: " + ex.getMessage());
      return 1;
    });
    return cl.execute(args);
  }

  public static void main(String[] args) {
    System.exit(execute(args));
  }
}
