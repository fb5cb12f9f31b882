package org.llmnpu.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.llmnpu.cli.cosim.CosimDspCommand;
import org.llmnpu.cli.cosim.CosimGemmCommand;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;
import org.llmnpu.hdl.tools.DesignChecks;
import org.llmnpu.hdl.tools.ExternalTool;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code npu demo}: generates every registered block with its default parameters, lints it
 * with {@code verilator -Wall} and synthesizes it with Yosys (one line per block), then
 * co-simulates a 2:4-sparse GEMM with GeLU on the generated GEMM engine and a SoftMax of 1,024
 * logits on the 16-lane Vector DSP in Verilator, and checks both against the golden models.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Generate every block, lint it (Verilator) and synthesize it (Yosys), then co-simulate a GEMM and a SoftMax.")
public final class DemoCommand implements Callable<Integer> {
  @Option(names = {"-o", "--out"}, description = "output directory (default: ${DEFAULT-VALUE})")
  Path out = Path.of("out", "demo");

  /**
   * The whole NPU at its defaults holds 256 KiB of scratchpad and 128 KiB of engine buffers, which this
   * check synthesizes as flip-flops; the demo builds a small one ({@code ./npu report ppa npu} black-boxes
   * the memories of the default one).
   */
  private static final Map<String, Map<String, String>> DEMO_PARAMS = Map.of("npu", Map.ofEntries(
      Map.entry("rows", "4"), Map.entry("spadKiB", "1"), Map.entry("spadBanks", "2"), Map.entry("extMemMiB", "1"),
      Map.entry("maxM", "8"), Map.entry("maxK", "8"), Map.entry("maxN", "8"), Map.entry("mTile", "4"),
      Map.entry("dspLanes", "1"), Map.entry("dspRows", "16"), Map.entry("dspProgramDepth", "16")));

  @Override
  public Integer call() {
    for (String tool : List.of("verilator", "yosys")) {
      if (ExternalTool.find(tool).isEmpty()) {
        System.err.println("error: " + ExternalTool.installHint(tool));
        return 1;
      }
    }
    int failures = 0;
    List<BlockGenerator> blocks = BlockRegistry.all();
    int nameWidth = blocks.stream().mapToInt(g -> g.name().length()).max().orElse(5) + 1;
    String row = "%-" + nameWidth + "s %-44s %5s %13s %9s   %s%n";
    System.out.printf(row, "block", "top module", "files", "lint warnings", "cells", "emit time");
    for (BlockGenerator g : blocks) {
      Path dir = out.resolve(g.name());
      long start = System.nanoTime();
      VerilogDesign d = Verilog.emit(g.build(Params.resolve(g, DEMO_PARAMS.getOrDefault(g.name(), Map.of()))));
      double emitMs = (System.nanoTime() - start) / 1e6;
      d.writeTo(dir);
      List<String> lint = DesignChecks.lint(d, dir);
      long cells = DesignChecks.synthesize(d, dir);
      failures += lint.isEmpty() ? 0 : 1;
      System.out.printf(row, g.name(), d.top(), d.files().size(), lint.size(), cells, String.format("%.1f ms", emitMs));
      lint.forEach(l -> System.out.println("    " + l));
    }
    System.out.println("Verilog, filelists and Yosys statistics are in " + out);
    System.out.println();
    System.out.println("Co-simulation: ./npu cosim gemm --rows 8 --cols 8 --m 24 --k 96 --n 16 --sparsity s2_4 "
        + "--activation gelu");
    int cosim = new CommandLine(new CosimGemmCommand()).execute("--rows", "8", "--cols", "8", "--m", "24", "--k", "96",
        "--n", "16", "--sparsity", "s2_4", "--activation", "gelu");
    System.out.println();
    System.out.println("Co-simulation: ./npu cosim dsp --kernel softmax --len 1024 --lanes 16");
    int dsp = new CommandLine(new CosimDspCommand()).execute("--kernel", "softmax", "--len", "1024", "--lanes", "16");
    return failures == 0 && cosim == 0 && dsp == 0 ? 0 : 1;
  }
}
