package org.llmnpu.flow.report;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.llmnpu.cosim.report.NpuEnergyCalibration;
import org.llmnpu.cosim.report.NpuReportPipeline;
import org.llmnpu.cosim.report.NpuUnits;
import org.llmnpu.flow.graph.Job;
import org.llmnpu.flow.graph.JobCodec;
import org.llmnpu.reports.energy.Calibration;
import org.llmnpu.reports.energy.NpuDataPathActivity;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.tools.DesignChecks;
import org.llmnpu.reports.OutputDirectory;
import org.llmnpu.reports.html.NpuReportWriter;
import org.llmnpu.reports.npu.NpuReport;
import org.llmnpu.reports.npu.SocSection;
import org.llmnpu.reports.ppa.InstanceDesigns;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.rtl.npu.Npu;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.soc.SocReportSection;

/**
 * The whole-NPU report ({@code npu report npu}, {@code npu demo}) as a job graph:
 *
 * <pre>
 * generate ─► lint                          (npu demo)
 * synth:npu ─► area:&lt;unit&gt; (units the top keeps) ─┐
 * synth:&lt;unit&gt; (units the top flattens) ──────────┤
 * energy:npu-sim, synth:npu ─► energy:npu-&lt;run&gt; ×4 ─┐
 * energy:&lt;block&gt; (gemm-dense, gemm-2-4, dsp, ppm, pim) ─┴► energy ─┤
 * cosim, trends, soc ─────────────────────────────┴► report ─► write   (write: npu demo)
 * </pre>
 *
 * <ul>
 *   <li>{@code generate}: the NPU's Verilog written to {@code OUT/npu}; {@code lint}: {@code verilator --lint-only
 *   -Wall} on it (cached: the Verilog and Verilator's version).</li>
 *   <li>{@code synth:npu}: the top through the PPA flow (Yosys, hierarchical, + OpenSTA; the PPA flow's own
 *   content-addressed entries, keyed by Yosys's and OpenSTA's versions, the scripts, the library and the Verilog).
 *   {@code area:<module>}: a unit the top keeps as a module (GEMM engine, PPM, Vector DSP) — its share of the top's
 *   synthesis ({@link NpuUnits#share}: Yosys's per-module stat, no second run, no timing of its own);
 *   {@code synth:<module>}: a unit the top flattens into itself, synthesized and timed on its own.</li>
 *   <li>{@code energy:<block>}: one block's calibration runs (GEMM engine dense, GEMM engine 2:4, DSP, PPM, PiM for a
 *   PiM engine; {@link NpuEnergyCalibration#prepare}), each a job of its own that starts at 0 s beside
 *   {@code synth:npu}; {@code energy:npu-sim}: the NPU data paths' four Verilator runs (idle, fences, loads/stores,
 *   GEMMs; {@link NpuEnergyCalibration#npuActivity}), which need no synthesis; {@code energy:npu-<run>}: each run's
 *   OpenSTA power on the top's netlist once {@code synth:npu} and the simulations are done, side by side;
 *   {@code energy}: the energy table (read from a file, or calibrated on the NPU's engine size and data paths:
 *   {@link NpuEnergyCalibration}, cached under the engines' Verilog, tools, clock and seed) from those runs: the
 *   blocks' calibrations as their jobs made them ({@code Calibration.merged}), the whole-NPU power runs from this
 *   process's memo of simulated runs' OpenSTA results (the PPA flow's; another process would find their tool runs in
 *   the PPA cache), so no worker sits waiting for the top's synthesis, the four whole-NPU power runs share the cores,
 *   and the table repeats none of them.</li>
 *   <li>{@code cosim}: random programs and the decoder's phases on the RTL in Verilator against the golden ISA
 *   simulator (cached: the Verilog, the options, the toolkit's build and Verilator's version).</li>
 *   <li>{@code trends}: the seed trends of the cycle model and the recorded benchmarks (all but the sparsity row,
 *   which needs the energy table; {@link NpuReportPipeline#modelTrends}); {@code soc}: the SoC section (the soc
 *   model): neither needs another job, so they run beside the syntheses, not after the energy table.</li>
 *   <li>{@code report}: area split, energy per token, roofline, seed trends, SoC section; {@code write}: the report
 *   files in {@code OUT/report} (written atomically by {@link OutputDirectory}).</li>
 * </ul>
 *
 * Every job's declared inputs hold what determines its result, so a job's key changes whenever its result could.
 */
public final class NpuReportJobs {
  private final NpuReportPipeline.Options options;
  private final Npu top;
  private final VerilogDesign design;
  private final Job<Path> generate;
  private final Job<List<String>> lint;
  private final Job<PpaResult> synthTop;
  private final List<Job<NpuReport.Unit>> units = new ArrayList<>();
  private final Map<NpuEnergyCalibration.Block, Job<Optional<Calibration>>> energyBlocks =
      new EnumMap<>(NpuEnergyCalibration.Block.class);
  private final Job<Optional<NpuDataPathActivity>> npuActivity;
  private final List<Job<Boolean>> npuPowers = new ArrayList<>();
  private final Job<NpuEnergyCalibration.Table> energy;
  private final Job<NpuReportPipeline.Cosim> cosim;
  private final Job<NpuReportPipeline.ModelTrends> trends;
  private final Job<SocSection> soc;
  private final Job<NpuReportPipeline.Result> report;
  private final Job<Path> write;

  /**
   * @param options the report's options
   * @param out     {@code npu/} for the Verilog and {@code report/} for the report go here
   */
  public NpuReportJobs(NpuReportPipeline.Options options, Path out) {
    this.options = options;
    NpuConfig c = options.config();
    this.top = new Npu(c);
    this.design = Verilog.emit(top);
    List<String> verilog = files(design);
    PpaOptions ppa = options.ppa();
    String ppaInputs = ppaInputs(ppa);
    String toolkit = ToolkitBuild.fingerprint();
    String verilator = ToolkitBuild.verilatorVersion();
    String opts = String.format(Locale.ROOT, "npu %s; prompt %d; random programs %d; seed %d; energy table %s",
        new TreeMap<>(NpuReportPipeline.generatorParams(c)), options.promptTokens(), options.randomPrograms(),
        options.seed(), options.energyTable());

    Path verilogDir = out.resolve("npu");
    generate = Job.uncached("generate", List.of(), verilog, ctx -> {
      design.writeTo(verilogDir);
      ctx.log(String.format(Locale.ROOT, "%s: %d Verilog files in %s", design.top(), design.files().size(),
          verilogDir));
      return verilogDir;
    });
    lint = Job.cached("lint", List.of(generate), List.of(verilator), new LintCodec(), ctx -> {
      List<String> found = DesignChecks.lint(design, ctx.get(generate));
      ctx.log("verilator --lint-only -Wall: " + found.size() + " warnings");
      found.forEach(l -> ctx.log("  " + l));
      return found;
    });
    synthTop = Job.uncached("synth:npu", List.of(), with(verilog, ppaInputs),
        ctx -> NpuReportPipeline.topPpa(c, design, ppa, ctx::log));
    for (InstanceDesigns.Unit u : InstanceDesigns.of(top, design)) {
      // a unit the top keeps as a module: its share of the top's own synthesis (no second run); a unit the top
      // flattens into itself: synthesized on its own
      units.add(NpuUnits.topKeeps(design, u)
          ? Job.uncached("area:" + u.module(), List.of(synthTop), List.of(u.module()),
              ctx -> NpuUnits.share(u, ctx.get(synthTop), ctx::log))
          : Job.uncached("synth:" + u.module(), List.of(), with(files(u.design()), ppaInputs),
              ctx -> NpuUnits.unit(u, ppa, ctx::log)));
    }
    List<String> energyInputs = List.of(opts, ppaInputs, toolkit, verilator);
    for (NpuEnergyCalibration.Block b : NpuEnergyCalibration.Block.values()) {
      if (b != NpuEnergyCalibration.Block.PIM || c.engineTiming().pim()) {
        energyBlocks.put(b, Job.uncached("energy:" + slug(b.name()), List.of(), energyInputs,
            ctx -> new NpuReportPipeline(options, ctx::log).energyBlock(top, design, b)));
      }
    }
    npuActivity = Job.uncached("energy:npu-sim", List.of(), energyInputs,
        ctx -> new NpuReportPipeline(options, ctx::log).npuActivity(top, design));
    for (int i = 0; i < NpuDataPathActivity.RUNS.size(); i++) {
      int run = i;
      npuPowers.add(Job.uncached("energy:" + slug(NpuDataPathActivity.RUNS.get(i)), List.of(synthTop, npuActivity),
          energyInputs, ctx -> {
            Optional<NpuDataPathActivity> a = ctx.get(npuActivity);
            a.ifPresent(act -> new NpuReportPipeline(options, ctx::log).npuPower(act, run));
            return a.isPresent();
          }));
    }
    List<Job<?>> energyDeps = new ArrayList<>(energyBlocks.values());
    energyDeps.addAll(npuPowers);
    energyDeps.add(npuActivity);
    energyDeps.add(synthTop);
    energy = Job.uncached("energy", energyDeps, energyInputs, ctx -> {
      // the blocks' calibrations their jobs made, taken as they are (NpuEnergyCalibration#table)
      Map<NpuEnergyCalibration.Block, Calibration> made = new EnumMap<>(NpuEnergyCalibration.Block.class);
      energyBlocks.forEach((b, job) -> ctx.get(job).ifPresent(cal -> made.put(b, cal)));
      return new NpuReportPipeline(options, ctx::log).energyTable(top, design, ctx.get(npuActivity).orElse(null),
          made);
    });
    cosim = Job.cached("cosim", List.of(), with(verilog, opts, toolkit, verilator),
        JobCodec.json(NpuReportPipeline.Cosim.class), ctx -> new NpuReportPipeline(options, ctx::log).cosim());
    trends = Job.uncached("trends", List.of(), List.of(opts, toolkit),
        ctx -> new NpuReportPipeline(options, ctx::log).modelTrends());
    soc = Job.uncached("soc", List.of(), List.of(toolkit), ctx -> SocReportSection.build());
    List<Job<?>> reportDeps = new ArrayList<>(List.of(synthTop, energy, cosim, trends, soc));
    reportDeps.addAll(units);
    report = Job.uncached("report", reportDeps, List.of(opts, toolkit), ctx -> {
      List<NpuReport.Unit> us = units.stream().map(ctx::get).toList();
      return new NpuReportPipeline(options, ctx::log).assemble(design, ctx.get(synthTop), us, ctx.get(cosim),
          ctx.get(energy), ctx.get(trends), ctx.get(soc));
    });
    Path reportDir = out.resolve("report");
    write = Job.uncached("write", List.of(report), List.of(reportDir.toString()), ctx -> {
      OutputDirectory od = OutputDirectory.open("npu-report", "-o", reportDir.toString(), true);
      NpuReportWriter.write(ctx.get(report).report(), od);
      ctx.log("report in " + reportDir);
      return reportDir;
    });
  }

  /**
   * The jobs to run, on the critical path first: the top's synthesis, then what follows it (the NPU's power runs, the
   * table), the NPU's simulations (their Verilator build is also the co-simulation's), the blocks' calibration runs,
   * the co-simulation, the seed trends and the SoC section, the units, then the rest. The runner starts ready jobs in
   * this order.
   */
  public List<Job<?>> goals() {
    List<Job<?>> g = new ArrayList<>(List.of(synthTop));
    g.addAll(npuPowers);
    g.add(energy);
    g.add(npuActivity);
    g.addAll(energyBlocks.values());
    g.add(cosim);
    g.add(trends);
    g.add(soc);
    g.addAll(units);
    g.add(generate);
    g.add(lint);
    g.add(write);
    return g;
  }

  public VerilogDesign design() {
    return design;
  }

  public Job<Path> generate() {
    return generate;
  }

  public Job<List<String>> lint() {
    return lint;
  }

  public Job<PpaResult> synthTop() {
    return synthTop;
  }

  public List<Job<NpuReport.Unit>> units() {
    return List.copyOf(units);
  }

  public Job<NpuEnergyCalibration.Table> energy() {
    return energy;
  }

  public Job<NpuReportPipeline.Cosim> cosim() {
    return cosim;
  }

  public Job<NpuReportPipeline.Result> report() {
    return report;
  }

  public Job<Path> write() {
    return write;
  }

  public NpuReportPipeline.Options options() {
    return options;
  }

  /** A name as a job id's tail: {@code NPU loads/stores} → {@code npu-loads-stores}, {@code GEMM_2_4} → {@code gemm-2-4}. */
  static String slug(String name) {
    return name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-|-$", "");
  }

  /** The design's files as declared inputs: each name, then its text, in name order. */
  static List<String> files(VerilogDesign d) {
    List<String> out = new ArrayList<>(List.of("top " + d.top()));
    new TreeMap<>(d.files()).forEach((name, text) -> {
      out.add(name);
      out.add(text);
    });
    return out;
  }

  /** What of the PPA options determines a synthesis (the cache location does not). */
  static String ppaInputs(PpaOptions p) {
    return String.format(Locale.ROOT, "clock %s ns; activity %s %s; clock port %s; flatten %s; liberty %s; gates %s",
        p.clockNs(), p.activity(), p.portActivities(), p.clockPort(), p.flatten(), p.liberty(), p.gateDuties());
  }

  private static List<String> with(List<String> base, String... more) {
    List<String> out = new ArrayList<>(base);
    out.addAll(List.of(more));
    return out;
  }

  /** Lint findings, one a line, in {@code lint.txt}. */
  private static final class LintCodec implements JobCodec<List<String>> {
    @Override
    public java.util.Map<String, String> encode(List<String> value) {
      return java.util.Map.of("lint.txt", String.join("\n", value));
    }

    @Override
    public List<String> decode(java.util.Map<String, String> files) {
      String text = files.get("lint.txt");
      return text.isEmpty() ? List.of() : List.of(text.split("\n", -1));
    }
  }
}
