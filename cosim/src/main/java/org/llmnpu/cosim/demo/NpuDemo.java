package org.llmnpu.cosim.demo;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.llmnpu.cosim.report.DecoderPhases;
import org.llmnpu.cosim.report.NpuReportPipeline;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.rtl.TargetClock;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * What the demo end to end ({@code npu demo}) runs and what it gives: generate the NPU's Verilog into
 * {@code <out>/npu}, lint it with {@code verilator -Wall}, then the whole-NPU report ({@link NpuReportPipeline}'s
 * steps: synthesis of the top and its units, co-simulation of random programs and the decoder's phases on the RTL
 * against the golden ISA simulator, energy per token) written to {@code <out>/report}. The run itself is a job graph
 * in {@code flow} ({@code NpuDemoFlow}: independent steps side by side, cached); this class holds its options and
 * its result.
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

  private NpuDemo() {
  }
}
