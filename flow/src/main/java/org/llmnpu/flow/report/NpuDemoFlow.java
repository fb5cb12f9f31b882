package org.llmnpu.flow.report;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.llmnpu.cosim.demo.NpuDemo;
import org.llmnpu.cosim.report.NpuReportPipeline;
import org.llmnpu.flow.graph.JobOutcome;
import org.llmnpu.flow.graph.JobRun;
import org.llmnpu.flow.graph.JobRunner;
import org.llmnpu.flow.graph.JobSchedule;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * {@code npu demo} end to end on the job graph of {@link NpuReportJobs}: generate and lint the NPU, synthesize the
 * top and its units, calibrate the energy table, co-simulate on the RTL, and write the report, with independent jobs
 * on {@code workers} cores at once. The jobs' results go to the PPA options' content-addressed cache, so a rerun
 * reruns nothing whose inputs did not change.
 */
public final class NpuDemoFlow {
  /**
   * What the demo did.
   *
   * @param run    every job's outcome (ran, cached, failed with its cause, skipped)
   * @param result   the demo's result as {@link NpuDemo} gives it, or null when a job failed
   * @param schedule the jobs' CPU times as a schedule on the run's cores, idle ({@link JobSchedule}): what the run
   *                 takes on this machine unloaded, whatever the load it ran under
   */
  public record Outcome(JobRun run, NpuDemo.Result result, JobSchedule schedule) {
    public boolean passed() {
      return result != null && result.passed();
    }

    /** One line per job: its status, wall time and CPU time (tools and its own thread), or its cause. */
    public List<String> jobLines() {
      return run.outcomes().stream().map(o -> String.format(Locale.ROOT, "  %-28s %-7s %s", o.id(),
          o.status().name().toLowerCase(Locale.ROOT), o.ok() ? o.status() == JobOutcome.Status.RAN
              ? String.format(Locale.ROOT, "%7.1f s, %s", o.seconds(), o.cpu()) : "" : o.cause())).toList();
    }
  }

  private NpuDemoFlow() {
  }

  /**
   * Runs the demo.
   *
   * @param options        the report's options ({@link NpuDemo#defaults()} for {@code npu demo})
   * @param out            {@code npu/} for the Verilog, {@code report/} for the report
   * @param workers        jobs at once (at least 1; {@link JobRunner#allCores()})
   * @param progressPeriod how often each running job gets a progress line
   * @param print          receives every line
   */
  public static Outcome run(NpuReportPipeline.Options options, Path out, int workers, Duration progressPeriod,
                            Consumer<String> print) throws InterruptedException {
    NpuConfig c = options.config();
    print.accept("npu demo: " + (c.equals(NpuConfig.defaults()) ? "the default NPU" : "the NPU") + " (" + c.rows()
        + "x" + c.rows() + " MAC array, " + c.spadKiB() + " KiB scratchpad, " + c.extMemMiB() + " MiB memory) end to "
        + "end, as jobs on " + workers + (workers == 1 ? " core" : " cores") + "; cache " + options.ppa().cache().root());
    NpuReportJobs jobs = new NpuReportJobs(options, out);
    JobRun run = new JobRunner(workers, options.ppa().cache(), print, progressPeriod).run(jobs.goals());
    JobSchedule schedule = JobSchedule.of(jobs.goals(), run, workers);
    if (!run.allOk()) {
      return new Outcome(run, null, schedule);
    }
    NpuDemo.Result r = new NpuDemo.Result(jobs.design(), run.result(jobs.generate()), run.result(jobs.lint()),
        run.result(jobs.report()), run.result(jobs.write()));
    return new Outcome(run, r, schedule);
  }
}
