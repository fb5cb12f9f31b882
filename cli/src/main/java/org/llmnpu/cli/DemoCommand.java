package org.llmnpu.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;
import org.llmnpu.hdl.tools.DesignChecks;
import org.llmnpu.hdl.tools.ExternalTool;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code npu demo}: generates every registered block with its default parameters, lints it
 * with {@code verilator -Wall} and synthesizes it with Yosys, and prints one line per block.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Generate every block, lint it with Verilator and synthesize it with Yosys.")
public final class DemoCommand implements Callable<Integer> {
  @Option(names = {"-o", "--out"}, description = "output directory (default: ${DEFAULT-VALUE})")
  Path out = Path.of("out", "demo");

  @Override
  public Integer call() {
    for (String tool : List.of("verilator", "yosys")) {
      if (ExternalTool.find(tool).isEmpty()) {
        System.err.println("error: " + ExternalTool.installHint(tool));
        return 1;
      }
    }
    int failures = 0;
    System.out.printf("%-12s %-32s %6s %14s %10s%n", "block", "top module", "files", "lint warnings", "cells");
    for (BlockGenerator g : BlockRegistry.all()) {
      Path dir = out.resolve(g.name());
      long start = System.nanoTime();
      VerilogDesign d = Verilog.emit(g.build(Params.resolve(g, Map.of())));
      double emitMs = (System.nanoTime() - start) / 1e6;
      d.writeTo(dir);
      List<String> lint = DesignChecks.lint(d, dir);
      long cells = DesignChecks.synthesize(d, dir);
      failures += lint.isEmpty() ? 0 : 1;
      System.out.printf("%-12s %-32s %6d %14d %10d   (emitted in %.1f ms)%n", g.name(), d.top(), d.files().size(),
          lint.size(), cells, emitMs);
      lint.forEach(l -> System.out.println("    " + l));
    }
    System.out.println("Verilog, filelists and Yosys statistics are in " + out);
    return failures == 0 ? 0 : 1;
  }
}
