package org.llmnpu.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.llmnpu.cosim.report.DecoderPhases;
import org.llmnpu.cosim.report.NpuReportPipeline;
import org.llmnpu.cli.report.NpuReportCommand;
import org.llmnpu.reports.OutputDirectory;
import org.llmnpu.reports.html.NpuReportWriter;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.reports.ppa.ToolFailure;
import org.llmnpu.rtl.TargetClock;
import org.llmnpu.rtl.npu.Npu;
import org.llmnpu.rtl.npu.NpuConfig;
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
 * {@code npu demo}: end to end on the default NPU — generate its Verilog, lint it with
 * {@code verilator -Wall}, synthesize it (Yosys + OpenSTA, cached), co-simulate programs and the
 * decoder's prefill and decode phases on its RTL in Verilator against the golden ISA simulator
 * (bit-exact, cycles against the cycle model), turn the counters into energy per token, and write
 * the whole-NPU report ({@link NpuReportPipeline}). {@code --quick} is the block tour: every
 * registered block generated, linted and synthesized (one line each), then a 2:4-sparse GEMM with
 * GeLU on the GEMM engine and a SoftMax of 1,024 logits on the 16-lane Vector DSP.
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
    for (String tool : quick ? List.of("verilator", "yosys") : List.of("verilator", "yosys", "sta")) {
      if (ExternalTool.find(tool).isEmpty()) {
        System.err.println("error: " + ExternalTool.installHint(tool));
        return 1;
      }
    }
    return quick ? tour() : endToEnd();
  }

  private static void progress(long t0, String what) {
    System.out.printf(Locale.ROOT, "[%6.1f s] %s%n", (System.nanoTime() - t0) / 1e9, what);
    System.out.flush();
  }

  /** Generate, lint, synthesize, co-simulate, energy and the report, on the default NPU. */
  private int endToEnd() {
    long t0 = System.nanoTime();
    NpuConfig c = NpuConfig.defaults();
    System.out.println("npu demo: the default NPU (" + c.rows() + "x" + c.rows() + " MAC array, " + c.spadKiB()
        + " KiB scratchpad, " + c.extMemMiB() + " MiB memory) end to end");
    progress(t0, "generate: npu " + NpuReportPipeline.generatorParams(c));
    VerilogDesign d = Verilog.emit(new Npu(c));
    Path dir = out.resolve("npu");
    d.writeTo(dir);
    System.out.printf(Locale.ROOT, "         %s: %d Verilog files in %s%n", d.top(), d.files().size(), dir);
    progress(t0, "lint: verilator --lint-only -Wall");
    List<String> lint = DesignChecks.lint(d, dir);
    System.out.println("         " + lint.size() + " warnings");
    lint.forEach(l -> System.out.println("    " + l));
    NpuReportPipeline.Options o = NpuReportCommand.options(c, false, TargetClock.PERIOD_NS_TEXT, null, 2, null, 1);
    NpuReportPipeline.Result r;
    try {
      r = new NpuReportPipeline(o, line -> {
        if (line.startsWith("[")) {
          progress(t0, line.replaceFirst("^\\[\\s*[0-9.]+ s\\] ", ""));
        } else {
          System.out.println(line);
          System.out.flush();
        }
      }).run();
    } catch (ToolFailure e) {
      System.err.println("npu demo: " + e.getMessage());
      return 1;
    }
    Path reportDir = out.resolve("report");
    OutputDirectory od = OutputDirectory.open("npu-report", "-o", reportDir.toString(), true);
    NpuReportWriter.write(r.report(), od);
    progress(t0, "done");
    for (DecoderPhases.PhaseRun p : r.phases()) {
      System.out.printf(Locale.ROOT, "  %-7s %s; RTL %,d cycles = model %s; %.4g uJ/token at 180 nm%n", p.phase(),
          p.bitExact() ? "bit-exact" : "NOT bit-exact", p.rtlCycles(),
          p.rtlCycles() == p.modelCycles() ? "yes" : "NO (" + p.modelCycles() + ")",
          r.report().phases().stream().filter(e -> e.phase().equals(p.phase())).findFirst().orElseThrow()
              .energyPerTokenJ(NodeScaling.Node.N180) * 1e6);
    }
    System.out.println("report: " + reportDir.resolve("index.html").toAbsolutePath() + " (and npu-report.json)");
    return lint.isEmpty() && r.allPassed() ? 0 : 1;
  }

  private int tour() {
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
