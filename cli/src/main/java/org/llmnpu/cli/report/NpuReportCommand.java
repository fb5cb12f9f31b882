package org.llmnpu.cli.report;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.llmnpu.cli.NpuParameters;
import org.llmnpu.cosim.report.NpuReportPipeline;
import org.llmnpu.reports.OutputDirectory;
import org.llmnpu.reports.html.NpuReportWriter;
import org.llmnpu.flow.graph.JobRun;
import org.llmnpu.flow.graph.JobRunner;
import org.llmnpu.flow.report.NpuReportJobs;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.rtl.TargetClock;
import org.llmnpu.rtl.npu.NpuConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code npu report npu [-p name=value]... [--config npu.yaml] [--quick] -o DIR}: the whole-NPU
 * report — configuration, PPA per unit, cycle model against the RTL, energy per token with its
 * breakdown, roofline, seed trends — as {@code index.html} (self-contained), {@code npu-report.json}
 * and CSVs, gathered as a job graph ({@link NpuReportJobs}: syntheses, calibration and co-simulation side by side
 * on {@code -j} cores, cached). Bad parameters: one line naming the parameter, exit 2, nothing written.
 */
@Command(name = "npu", mixinStandardHelpOptions = true,
    description = "The whole-NPU report: PPA per unit, cycle model vs RTL, energy per token, roofline, seed trends "
        + "(HTML, JSON, CSV).")
public final class NpuReportCommand implements Callable<Integer> {
  /** The NPU {@code --quick} uses when no configuration is given: 4×4 array, 8 KiB scratchpad. */
  public static final NpuConfig QUICK = NpuConfig.builder().rows(4).spadKiB(8).spadBanks(2).extMemMiB(4).mTile(8)
      .maxM(32).maxK(128).maxN(64).memory(8, 4).watchdogCycles(256).build();

  /** {@code -p} and {@code --config}; without either, the default NPU (with {@code --quick}: {@link #QUICK}). */
  @Mixin
  NpuParameters npu;
  @Option(names = "--quick", description = "2 random programs, 8 prompt tokens, and the small NPU unless --config or -p say "
      + "otherwise (every unit of the NPU is still synthesized, cached)")
  boolean quick;
  @Option(names = "--clock-ns", defaultValue = TargetClock.PERIOD_NS_TEXT, paramLabel = "ns",
      description = "clock constraint for synthesis and timing, 0.1..1000 (default: the NPU's target, ${DEFAULT-VALUE})")
  String clockNs;
  @Option(names = "--prompt", paramLabel = "tokens", description = "prefill length, 1..256 (default 64; 8 with --quick)")
  Integer prompt;
  @Option(names = "--programs", paramLabel = "n", description = "random programs co-simulated, 0..50 (default 4; 2 "
      + "with --quick)")
  Integer programs;
  @Option(names = "--energy-table", paramLabel = "FILE", description = "energy.json of 'npu report energy' instead of "
      + "calibrating the GEMM engine at the NPU's array size")
  Path energyTable;
  @Option(names = "--seed", defaultValue = "1", description = "seed of programs, data and calibration (default 1)")
  long seed;
  @Option(names = {"-o", "--output"}, required = true, paramLabel = "<dir>", description = "report directory")
  String output;
  @Option(names = "--force", description = "also write into a directory holding other files (they are kept)")
  boolean force;
  @Option(names = {"-j", "--jobs"}, paramLabel = "n", description = "jobs run at once: the syntheses, the energy "
      + "calibration and the co-simulation side by side (default: one per core, ${DEFAULT-VALUE})")
  int jobs = JobRunner.allCores();
  @Spec
  CommandSpec spec;

  /** The NPU the options describe (checked: names the parameter and the allowed values). */
  public static NpuConfig config(Path configFile, List<String> paramOptions, boolean quick) {
    return NpuParameters.resolve(configFile, paramOptions,
        quick && paramOptions.isEmpty() ? QUICK : NpuConfig.defaults());
  }

  /** The pipeline's options from the command line. */
  public static NpuReportPipeline.Options options(NpuConfig c, boolean quick, String clockNs, Integer prompt,
                                                  Integer programs, Path energyTable, long seed) {
    int tokens = prompt != null ? prompt : quick ? 8 : 64;
    if (tokens < 1 || tokens > 256) {
      throw new IllegalArgumentException("--prompt: " + tokens + " is not allowed; allowed: 1..256 tokens");
    }
    int n = programs != null ? programs : quick ? 2 : 4;
    if (n < 0 || n > 50) {
      throw new IllegalArgumentException("--programs: " + n + " is not allowed; allowed: 0..50");
    }
    if (energyTable != null && !Files.isRegularFile(energyTable)) {
      throw new IllegalArgumentException("--energy-table " + energyTable + ": no such file (write one with npu report "
          + "energy -o DIR)");
    }
    PpaOptions ppa = PpaOptions.defaults().withClockNs(DecimalOption.parse("--clock-ns", clockNs,
        PpaOptions.MIN_CLOCK_NS, PpaOptions.MAX_CLOCK_NS));
    return new NpuReportPipeline.Options(c, ppa, tokens, n, energyTable, seed);
  }

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      NpuConfig c = config(npu.configFile(), npu.params(), quick);
      NpuReportPipeline.Options o = options(c, quick, clockNs, prompt, programs, energyTable, seed);
      OutputDirectory.check("-o", output, force);
      if (jobs < 1) {
        throw new IllegalArgumentException("--jobs: jobs run at once must be at least 1, got " + jobs);
      }
      long t0 = System.nanoTime();
      NpuReportJobs graph = new NpuReportJobs(o, Path.of(output));
      JobRun run = new JobRunner(jobs, o.ppa().cache(), line -> {
        out.println(line);
        out.flush();
      }, java.time.Duration.ofSeconds(15)).run(List.of(graph.report()));
      if (!run.allOk()) {
        run.failures().forEach(f -> err.println("npu report npu: " + f.id() + " failed: " + f.cause()));
        return 1;
      }
      NpuReportPipeline.Result r = run.result(graph.report());
      OutputDirectory dir = OutputDirectory.open("npu-report", "-o", output, force);
      NpuReportWriter.write(r.report(), dir);
      out.printf(Locale.ROOT, "wrote %s, npu-report.json and CSVs (%.1f s)%n", dir.path().resolve("index.html"),
          (System.nanoTime() - t0) / 1e9);
      if (!r.allPassed()) {
        err.println("npu report npu: a co-simulated program did not match the golden model (see the cycle table)");
        return 1;
      }
      return 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("npu report npu: interrupted");
      return 1;
    } catch (IllegalArgumentException e) {
      err.println("npu report npu: " + e.getMessage());
      return 2;
    }
  }
}
