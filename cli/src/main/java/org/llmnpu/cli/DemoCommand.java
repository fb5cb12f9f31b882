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
import org.llmnpu.flow.report.NpuDemoFlow;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code npu demo}: end to end on the default NPU ({@link NpuDemo}) — generate its Verilog, lint it with
 * {@code verilator -Wall}, synthesize it and its units (Yosys + OpenSTA, cached), co-simulate programs and the
 * decoder's prefill and decode phases on its RTL in Verilator against the golden ISA simulator (bit-exact, cycles
 * against the cycle model), turn the counters into energy per token, and write the whole-NPU report — as a job graph
 * ({@link NpuDemoFlow}: independent jobs on {@code -j} cores, cached results, a progress line per running job).
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

  @Option(names = {"-j", "--jobs"}, description = "jobs run at once (default: one per core, ${DEFAULT-VALUE})")
  int jobs = org.llmnpu.flow.graph.JobRunner.allCores();

  @Option(names = "--progress-seconds", description = "seconds between two progress lines of a running job "
      + "(default: ${DEFAULT-VALUE})")
  int progressSeconds = 15;

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
    if (jobs < 1) {
      System.err.println("error: --jobs: jobs run at once must be at least 1, got " + jobs);
      return 2;
    }
    if (progressSeconds < 1) {
      System.err.println("error: --progress-seconds: must be at least 1, got " + progressSeconds);
      return 2;
    }
    NpuDemoFlow.Outcome o;
    try {
      o = NpuDemoFlow.run(NpuDemo.defaults(), out, jobs, java.time.Duration.ofSeconds(progressSeconds),
          DemoCommand::print);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      System.err.println("npu demo: interrupted");
      return 1;
    }
    System.out.printf(java.util.Locale.ROOT, "jobs: %.1f s wall, %.1f s CPU (user+sys of the JVM and its tools), load "
        + "average %s%n", o.run().seconds(), o.run().cpuSeconds(), loadAverage());
    o.jobLines().forEach(System.out::println);
    System.out.println("schedule of the jobs' CPU times: " + o.schedule());
    if (o.result() == null) {
      o.run().failures().forEach(f -> System.err.println("npu demo: " + f.id() + " failed: " + f.cause()));
      return 1;
    }
    NpuDemo.Result r = o.result();
    r.phaseLines().forEach(System.out::println);
    System.out.println("report: " + r.reportDir().resolve("index.html").toAbsolutePath() + " (and npu-report.json)");
    return r.passed() ? 0 : 1;
  }

  /** The 1-, 5- and 15-minute load averages (Linux), or "unknown". */
  private static String loadAverage() {
    try {
      String[] f = java.nio.file.Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (java.io.IOException e) {
      return "unknown";
    }
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
