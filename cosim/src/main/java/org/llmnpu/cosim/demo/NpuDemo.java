package org.llmnpu.cosim.demo;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.llmnpu.cosim.report.DecoderPhases;
import org.llmnpu.cosim.report.NpuReportPipeline;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.tools.DesignChecks;
import org.llmnpu.reports.OutputDirectory;
import org.llmnpu.reports.html.NpuReportWriter;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.rtl.TargetClock;
import org.llmnpu.rtl.npu.Npu;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * The demo end to end ({@code npu demo}): generate the NPU's Verilog into {@code <out>/npu}, lint it with
 * {@code verilator -Wall}, then the whole-NPU report ({@link NpuReportPipeline}: synthesis of the top and its units,
 * co-simulation of random programs and the decoder's phases on the RTL against the golden ISA simulator, energy
 * per token) written to {@code <out>/report}. Progress goes to a line consumer, each step stamped with the seconds
 * since the start ({@code [  12.3 s] lint: ...}); the caller prints the {@link Result}.
 */
public final class NpuDemo {
  /** The demo's report: the default NPU at the target clock, 64 prompt tokens, 2 random programs, seed 1. */
  public static NpuReportPipeline.Options defaults() {
    return new NpuReportPipeline.Options(NpuConfig.defaults(), PpaOptions.defaults().withClockNs(TargetClock.PERIOD_NS),
        64, 2, null, 1);
  }

  /**
   * What the demo did.
   *
   * @param design    the NPU's Verilog
   * @param verilogDir where it was written
   * @param lint      verilator's findings (empty: clean)
   * @param report    the report and the decoder phases that ran
   * @param reportDir where the report was written ({@code index.html}, {@code npu-report.json}, CSVs)
   */
  public record Result(VerilogDesign design, Path verilogDir, List<String> lint, NpuReportPipeline.Result report,
                       Path reportDir) {
    public Result {
      lint = List.copyOf(lint);
    }

    /** Lint clean, and every co-simulated program bit-exact with the model's cycles. */
    public boolean passed() {
      return lint.isEmpty() && report.allPassed();
    }

    /** One line per decoder phase: bit-exactness, RTL cycles against the model's, energy per token at 180 nm. */
    public List<String> phaseLines() {
      return report.phases().stream().map(p -> String.format(Locale.ROOT,
          "  %-7s %s; RTL %,d cycles = model %s; %.4g uJ/token at 180 nm", p.phase(),
          p.bitExact() ? "bit-exact" : "NOT bit-exact", p.rtlCycles(),
          p.rtlCycles() == p.modelCycles() ? "yes" : "NO (" + p.modelCycles() + ")",
          energyPerTokenUj(p))).toList();
    }

    private double energyPerTokenUj(DecoderPhases.PhaseRun p) {
      return report.report().phases().stream().filter(e -> e.phase().equals(p.phase())).findFirst().orElseThrow()
          .energyPerTokenJ(NodeScaling.Node.N180) * 1e6;
    }
  }

  private final NpuReportPipeline.Options options;
  private final Path out;
  private final Consumer<String> print;
  private long t0;

  /**
   * @param options the report's options ({@link #defaults} for {@code npu demo})
   * @param out     the output directory: {@code npu/} for the Verilog, {@code report/} for the report
   * @param print   receives every progress line
   */
  public NpuDemo(NpuReportPipeline.Options options, Path out, Consumer<String> print) {
    this.options = options;
    this.out = out;
    this.print = print;
  }

  private void progress(String what) {
    print.accept(String.format(Locale.ROOT, "[%6.1f s] %s", (System.nanoTime() - t0) / 1e9, what));
  }

  /** Runs the demo; tool failures ({@code ToolFailure}) and a report that fails its checks propagate. */
  public Result run() {
    t0 = System.nanoTime();
    NpuConfig c = options.config();
    print.accept("npu demo: " + (c.equals(NpuConfig.defaults()) ? "the default NPU" : "the NPU") + " (" + c.rows() + "x" + c.rows() + " MAC array, " + c.spadKiB()
        + " KiB scratchpad, " + c.extMemMiB() + " MiB memory) end to end");
    progress("generate: npu " + NpuReportPipeline.generatorParams(c));
    VerilogDesign d = Verilog.emit(new Npu(c));
    Path dir = out.resolve("npu");
    d.writeTo(dir);
    print.accept(String.format(Locale.ROOT, "         %s: %d Verilog files in %s", d.top(), d.files().size(), dir));
    progress("lint: verilator --lint-only -Wall");
    List<String> lint = DesignChecks.lint(d, dir);
    print.accept("         " + lint.size() + " warnings");
    lint.forEach(l -> print.accept("    " + l));
    NpuReportPipeline.Result r = new NpuReportPipeline(options, line -> {
      if (line.startsWith("[")) {
        progress(line.replaceFirst("^\\[\\s*[0-9.]+ s\\] ", ""));
      } else {
        print.accept(line);
      }
    }).run();
    Path reportDir = out.resolve("report");
    OutputDirectory od = OutputDirectory.open("npu-report", "-o", reportDir.toString(), true);
    NpuReportWriter.write(r.report(), od);
    progress("done");
    return new Result(d, dir, lint, r, reportDir);
  }
}
