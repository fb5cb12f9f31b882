package org.llmnpu.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.llmnpu.cli.cosim.CosimDspCommand;
import org.llmnpu.cli.cosim.CosimGemmCommand;
import org.llmnpu.cosim.demo.BlockTour;
import org.llmnpu.cosim.demo.NpuDemo;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.tools.ExternalTool;
import org.llmnpu.reports.npu.UnitAreaMismatch;
import org.llmnpu.reports.ppa.ToolFailure;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code npu demo}: end to end on the default NPU ({@link NpuDemo}) — generate its Verilog, lint it with
 * {@code verilator -Wall}, synthesize it and its units (Yosys + OpenSTA, cached), co-simulate programs and the
 * decoder's prefill and decode phases on its RTL in Verilator against the golden ISA simulator (bit-exact, cycles
 * against the cycle model), turn the counters into energy per token, and write the whole-NPU report.
 * {@code --quick} is the block tour ({@link BlockTour}: every registered block generated, linted and synthesized,
 * one line each), then a 2:4-sparse GEMM with GeLU on the GEMM engine and a SoftMax of 1,024 logits on the 16-lane
 * Vector DSP. This class parses the options and prints.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "End to end on the default NPU: generate, lint, synthesize, co-simulate the decoder's phases on the "
        + "RTL, energy per token, the NPU report. --quick: the block tour.")
public final class DemoCommand implements Callable<Integer> {
  @Option(names = {"-o", "--out"}, description = "output directory (default: ${DEFAULT-VALUE})")
  Path out = Path.of("out", "demo");

  @Option(names = "--quick", description = "the block tour instead: every block generated, linted and synthesized, "
      + "then a GEMM and a SoftMax co-simulated")
  boolean quick;

  @Override
  public Integer call() {
    for (String tool : quick ? List.of("verilator", "yosys") : List.of("verilator", "yosys", "sta")) {
      if (ExternalTool.find(tool).isEmpty()) {
        System.err.println("error: " + ExternalTool.installHint(tool));
        return 1;
      }
    }
    return quick ? tour() : endToEnd();
  }

  private static void print(String line) {
    System.out.println(line);
    System.out.flush();
  }

  private int endToEnd() {
    NpuDemo.Result r;
    try {
      r = new NpuDemo(NpuDemo.defaults(), out, DemoCommand::print).run();
    } catch (ToolFailure | UnitAreaMismatch e) {
      System.err.println("npu demo: " + e.getMessage());
      return 1;
    }
    r.phaseLines().forEach(System.out::println);
    System.out.println("report: " + r.reportDir().resolve("index.html").toAbsolutePath() + " (and npu-report.json)");
    return r.passed() ? 0 : 1;
  }

  private int tour() {
    int failures = BlockTour.run(BlockRegistry.all(), out, System.out::println);
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
