package org.llmnpu.cli.soc;

import java.io.PrintWriter;
import java.util.function.Supplier;
import org.llmnpu.cli.NpuCommand;
import picocli.CommandLine.Model.CommandSpec;

/** Runs a {@code soc} command: prints what it computes, or its option error (exit 2). */
final class SocRun {
  private SocRun() {
  }

  static int print(CommandSpec spec, String command, Supplier<String> output) {
    try {
      String text = output.get();
      PrintWriter out = spec.commandLine().getOut();
      out.print(text);
      out.flush();
      return 0;
    } catch (IllegalArgumentException e) {
      PrintWriter err = spec.commandLine().getErr();
      err.println("npu soc " + command + ": " + e.getMessage());
      err.flush();
      return NpuCommand.USAGE_ERROR;
    }
  }
}
