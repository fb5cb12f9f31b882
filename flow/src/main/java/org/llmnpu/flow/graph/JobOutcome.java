package org.llmnpu.flow.graph;

/**
 * What became of one job in a {@link JobRunner} run.
 *
 * @param id      the job's id
 * @param status  {@link Status}
 * @param seconds wall time of its body (0 when cached or skipped)
 * @param key     the job's key (SHA-256 of its id, inputs and its dependencies' keys); for a cached job that ran
 *                or was found, the cache entry it is stored under
 * @param cause   for a failed job the exception and where it was thrown, for a skipped one the failed dependency;
 *                empty otherwise
 * @param cpu     CPU time its body used (0 when cached or skipped)
 */
public record JobOutcome(String id, Status status, double seconds, String key, String cause, JobCpu cpu) {
  /** How the job ended. */
  public enum Status {
    /** its body ran and returned */
    RAN,
    /** its result was read from the cache: nothing it depends on changed */
    CACHED,
    /** its body threw */
    FAILED,
    /** not run because a job it depends on failed */
    SKIPPED
  }

  public boolean ok() {
    return status == Status.RAN || status == Status.CACHED;
  }
}
