package org.llmnpu.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.llmnpu.flow.dse.DseExecutors;
import org.llmnpu.flow.dse.DseRun;
import org.llmnpu.flow.dse.SweepFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code npu dse FILE [--executor local|slurm] [-j N] [--max-attempts N] -o DIR}: runs the design-space sweep of a
 * sweep file ({@link SweepFile}) point by point through an executor and writes its Pareto report ({@link DseRun}).
 * Parses and prints only. Exit status 0 when every point is done, 1 when some failed (the report is written with
 * their causes), 2 for a bad file or option (one line naming the key and the allowed values).
 */
@Command(name = "dse", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Design-space sweep: every point of a sweep file (cartesian product of its parameters) evaluated "
        + "as its own process (cycle model, synthesis area, energy table), then DIR/index.html (SVG Pareto plots), "
        + "DIR/points.csv and DIR/pareto.json. A rerun into the same DIR runs only the missing or failed points.")
public final class DseCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "FILE", description = "the sweep file (YAML; see flow/README.md)")
  Path file;
  @Option(names = "--executor", defaultValue = "local", description = "local (this machine's cores) or slurm (a "
      + "job array; settings from LLMNPU_SLURM_PARTITION, _TIME, _MEM, ... see flow/README.md) (default "
      + "${DEFAULT-VALUE})")
  String executor;
  @Option(names = "-j", defaultValue = "0", description = "points run at once: local, 0 = one per core; slurm, the "
      + "job array's task limit, 0 = none (default ${DEFAULT-VALUE})")
  int jobs;
  @Option(names = "--max-attempts", defaultValue = "2", description = "starts of a point before it counts as "
      + "failed, at least 1 (default ${DEFAULT-VALUE})")
  int maxAttempts;
  @Option(names = {"-o", "--output"}, required = true, paramLabel = "DIR", description = "the sweep's directory: "
      + "new, empty, or an earlier run of a sweep")
  Path output;
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws IOException, InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("--max-attempts: must be at least 1, got " + maxAttempts);
      }
      checkOutput(output);
      SweepFile sweep = SweepFile.read(file);
      PrintStream progress = System.err;
      DseRun.Summary s = DseRun.run(sweep, output, DseExecutors.of(executor, jobs, progress), maxAttempts,
          DseRun.javaCommand(), progress);
      out.printf("dse %s: %d points done, %d failed%s%n", sweep.name(), s.done().size(), s.failed().size(),
          s.failed().isEmpty() ? "" : " (" + String.join(", ", s.failed()) + "; causes in pareto.json)");
      out.println("wrote " + output.resolve("index.html") + ", points.csv, pareto.json, wall-times.csv");
      out.flush();
      return s.failed().isEmpty() ? 0 : 1;
    } catch (IllegalArgumentException e) {
      err.println("npu dse: " + e.getMessage());
      err.flush();
      return NpuCommand.USAGE_ERROR;
    }
  }

  /** A directory that exists must be empty or hold an earlier sweep (its {@code points} directory). */
  private static void checkOutput(Path dir) throws IOException {
    if (Files.exists(dir) && !Files.isDirectory(dir)) {
      throw new IllegalArgumentException("-o: " + dir + " is a file; give a directory");
    }
    if (Files.isDirectory(dir) && !Files.isDirectory(dir.resolve(DseRun.POINTS))) {
      try (var s = Files.list(dir)) {
        if (s.findAny().isPresent()) {
          throw new IllegalArgumentException("-o: " + dir + " holds other files and no earlier sweep (no "
              + DseRun.POINTS + "/); give a new or empty directory");
        }
      }
    }
  }
}
