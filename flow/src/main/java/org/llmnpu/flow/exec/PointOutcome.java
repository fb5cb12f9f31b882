package org.llmnpu.flow.exec;

/**
 * What became of one {@link PointTask} after an executor ran it.
 *
 * @param id the task's id
 * @param status {@link Status#DONE} when the result file exists, else {@link Status#FAILED}
 * @param attempts how many times the executor started the task in this run (0 when its result already existed)
 * @param failure for a failed task the cause of its last attempt (exit code, signal, Slurm state, the tail of its
 *     standard error); empty when done
 */
public record PointOutcome(String id, Status status, int attempts, String failure) {
  /** Whether the task's result exists at the end of the run. */
  public enum Status {
    DONE,
    FAILED
  }

  public boolean done() {
    return status == Status.DONE;
  }
}
