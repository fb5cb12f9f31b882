package org.llmnpu.cli.report;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.cli.NpuParameters;
import org.llmnpu.hdl.gen.Params;
import org.llmnpu.reports.OutputDirectory;
import org.llmnpu.reports.html.PpaReport;
import org.llmnpu.reports.html.ReportWriter;
import org.llmnpu.reports.ppa.BlockDesigns;
import org.llmnpu.reports.activity.SimulatedActivity;
import org.llmnpu.reports.ppa.PpaFlow;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.reports.ppa.PpaSweep;
import org.llmnpu.reports.ppa.ToolFailure;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code npu report ppa <block> [-p name=value]... [--config npu.yaml] [--clock-ns 5] [--sweep name=v1,v2,...]
 * [--flatten] -o <dir>} ({@code --config}: the npu block only, see {@link NpuParameters}):
 * synthesizes the block (Yosys, OSU 0.18 µm), times and powers it (OpenSTA), scales to 45 and
 * 7 nm, and writes {@code index.html}, {@code ppa.json} and {@code ppa.csv} into the directory.
 * Every input is checked before any tool runs; bad input prints one line naming the parameter
 * and its allowed values and exits with 2; a tool failure prints the tool's errors and exits
 * with 1. The report directory appears only when the whole report is written.
 */
@Command(name = "ppa", mixinStandardHelpOptions = true,
    description = "Area, timing and power of a block from Yosys + OpenSTA, as HTML (with plots), JSON and CSV.")
public final class PpaCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "<block>", description = "block name (see 'npu blocks')")
  String block;

  @Mixin
  NpuParameters paramOptions;

  @Option(names = "--clock-ns", paramLabel = "ns", defaultValue = "5",
      description = "clock period in ns, a decimal number in 0.1..1000 (default: ${DEFAULT-VALUE})")
  String clockNs;

  @Option(names = "--sweep", paramLabel = "name=v1,v2,...", description = "vary one parameter; plots PPA against it")
  String sweep;

  @Option(names = "--activity", paramLabel = "toggles", defaultValue = "0.1",
      description = "switching activity of data inputs for power, 0..1 toggles/cycle (default: ${DEFAULT-VALUE})")
  String activity;

  @Option(names = "--port-activity", paramLabel = "port=toggles", description = "activity of one input port")
  Map<String, String> portActivities = new LinkedHashMap<>();

  @Option(names = "--gate-duty", paramLabel = "bank=fraction", description = "fraction of cycles the clock gate of "
      + "a gated bank is open, 0..1, for power (e.g. gemmEngine=0.2); a gate not given is open every cycle, or as a "
      + "--activity-vcd run's enable")
  Map<String, String> gateDuties = new LinkedHashMap<>();

  @Option(names = "--activity-vcd", paramLabel = "FILE", description = "switching activity from a simulated run of "
      + "this block with the same parameters (the VCD of 'npu cosim ... --vcd FILE'), instead of --activity")
  Path activityVcd;

  @Option(names = "--flatten", description = "flatten before synthesis: optimizes across module boundaries, "
      + "but synthesizes every array element separately (slow for large arrays)")
  boolean flatten;

  @Option(names = {"-o", "--output"}, paramLabel = "<dir>", required = true,
      description = "report directory (new, empty, or an earlier report's)")
  String output;

  @Option(names = "--force", description = "also write into a directory holding other files (they are kept; only "
      + "the report's own files are replaced)")
  boolean force;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      BlockGenerator gen = BlockRegistry.find(block);
      Map<String, String> params = paramOptions.blockParams(block);
      Map<String, Double> ports = new LinkedHashMap<>();
      portActivities.forEach((port, a) -> ports.put(port, DecimalOption.parse("--port-activity " + port, a, 0, 1)));
      PpaOptions options = PpaOptions.defaults().withClockNs(DecimalOption.parse("--clock-ns", clockNs, PpaOptions.MIN_CLOCK_NS, PpaOptions.MAX_CLOCK_NS))
          .withActivity(DecimalOption.parse("--activity", activity, 0, 1), ports).withFlatten(flatten);
      Map<String, Double> duties = new LinkedHashMap<>();
      gateDuties.forEach((bank, d) -> duties.put(bank, DecimalOption.parse("--gate-duty " + bank, d, 0, 1)));
      options = options.withGateDuties(duties);
      OutputDirectory.check("-o", output, force);
      SweepSpec s = SweepSpec.parse(sweep);
      SimulatedActivity simulated = null;
      if (activityVcd != null) {
        if (s != null) {
          throw new IllegalArgumentException("--activity-vcd: a run is of one design; not allowed with --sweep");
        }
        if (!Files.isRegularFile(activityVcd)) {
          throw new IllegalArgumentException("--activity-vcd " + activityVcd + ": no such file");
        }
        simulated = SimulatedActivity.read(activityVcd, options.clockPort());
      }
      Map<String, String> base = Params.resolve(gen, params).asMap();
      if (s != null) {
        for (String v : s.values()) {
          Map<String, String> point = new LinkedHashMap<>(params);
          point.put(s.param(), v);
          Params.resolve(gen, point);
        }
      }
      List<PpaResult> results;
      if (simulated != null) {
        long t0 = System.nanoTime();
        PpaResult r = PpaFlow.run(BlockDesigns.of(gen).design(base), base, options, simulated);
        out.println(summary(r, (System.nanoTime() - t0) / 1_000_000));
        out.println("activity: " + r.power().activityModel());
        results = List.of(r);
      } else {
        results = PpaSweep.run(BlockDesigns.of(gen), base, s == null ? null : s.param(),
            s == null ? List.of() : s.values(), options, (r, ms) -> {
              out.println(summary(r, ms));
              out.flush();
            });
      }
      ReportWriter.write(PpaReport.of(block, s == null ? null : s.param(), results, options), output, force);
      out.println("wrote " + Path.of(output).resolve("index.html") + ", ppa.json, ppa.csv");
      return 0;
    } catch (ToolFailure e) {
      err.println("npu report ppa: " + e.getMessage());
      return 1;
    } catch (IllegalArgumentException e) {
      err.println("npu report ppa: " + e.getMessage());
      return 2;
    }
  }

  private static String summary(PpaResult r, long millis) {
    StringBuilder p = new StringBuilder();
    r.params().forEach((k, v) -> p.append(' ').append(k).append('=').append(v));
    return String.format(Locale.ROOT, "%s%s: std-cell area %.0f um^2, SRAM %.0f um^2 (model), Fmax %.1f MHz, "
            + "power %.3f mW at %.3g ns [%.1f s]", r.design(), p, r.synthesis().chipAreaUm2(),
        r.sramAreaUm2(org.llmnpu.reports.ppa.NodeScaling.Node.N180), r.timing().fmaxMhz(), r.power().totalMw(),
        r.timing().clockNs(), millis / 1000.0);
  }
}
