package org.llmnpu.flow.graph;

import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * The outcome of running a job graph: every job's {@link JobOutcome} in the order the jobs were declared, and the
 * results of those that ended well.
 */
public final class JobRun {
  private final List<JobOutcome> outcomes;
  private final Map<String, Object> results;
  private final double seconds;
  private final double cpuSeconds;

  JobRun(List<JobOutcome> outcomes, Map<String, Object> results, double seconds, double cpuSeconds) {
    this.outcomes = List.copyOf(outcomes);
    this.results = Map.copyOf(results);
    this.seconds = seconds;
    this.cpuSeconds = cpuSeconds;
  }

  /**
   * CPU time (user + system) of the run: this JVM's and that of the tool processes it started and waited for (Linux's
   * {@code /proc/self/stat}; NaN elsewhere). Unlike the wall time it does not depend on the machine's load.
   */
  public double cpuSeconds() {
    return cpuSeconds;
  }

  public List<JobOutcome> outcomes() {
    return outcomes;
  }

  /** Wall time of the whole run, seconds. */
  public double seconds() {
    return seconds;
  }

  public boolean allOk() {
    return outcomes.stream().allMatch(JobOutcome::ok);
  }

  /** The failed jobs (not the ones skipped because of them). */
  public List<JobOutcome> failures() {
    return outcomes.stream().filter(o -> o.status() == JobOutcome.Status.FAILED).toList();
  }

  public JobOutcome outcome(Job<?> job) {
    return outcomes.stream().filter(o -> o.id().equals(job.id())).findFirst()
        .orElseThrow(() -> new NoSuchElementException("job " + job.id() + " was not part of this run"));
  }

  /** The result of a job that ran or was cached; a failed or skipped job's is an error naming its cause. */
  @SuppressWarnings("unchecked")
  public <T> T result(Job<T> job) {
    JobOutcome o = outcome(job);
    if (!o.ok()) {
      throw new IllegalStateException("job " + job.id() + " " + o.status().name().toLowerCase() + ": " + o.cause());
    }
    return (T) results.get(job.id());
  }
}
