package org.llmnpu.flow.exec;

import java.io.IOException;
import java.util.List;

/**
 * Runs independent tasks somewhere — on this machine's cores ({@code local}) or as a Slurm job array
 * ({@code slurm}) — and reports each one's outcome.
 *
 * <p>Contract shared by every executor: a task whose {@linkplain PointTask#resultFile() result file} already exists
 * is not started (outcome DONE with 0 attempts); a task that ends without its result file is started again, up to
 * {@code maxAttempts} starts in all; failures of one task never stop the others; the outcomes come back in the order
 * of {@code tasks}. Partial results stay on disk whatever happens.
 */
public interface PointExecutor {
  /**
   * Runs the tasks and waits for all of them.
   *
   * @param maxAttempts at least 1
   * @throws IOException when the executor itself cannot work (e.g. {@code sbatch} missing), not when a task fails
   */
  List<PointOutcome> run(List<PointTask> tasks, int maxAttempts) throws IOException, InterruptedException;

  /** The executor's name as the CLI takes it: {@code local} or {@code slurm}. */
  String name();
}
