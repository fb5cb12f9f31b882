package org.llmnpu.flow.dse;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import org.llmnpu.flow.exec.LocalExecutor;
import org.llmnpu.flow.exec.PointExecutor;

/** The executors {@code npu dse --executor} names. */
public final class DseExecutors {
  /** The names {@code --executor} takes. */
  public static final List<String> NAMES = List.of("local", "slurm");

  private DseExecutors() {
  }

  /**
   * The executor {@code name} running {@code jobs} points at once (local; 0: one per core).
   *
   * @throws IllegalArgumentException for an unknown name, naming the allowed ones
   */
  public static PointExecutor of(String name, int jobs, PrintStream progress) {
    if (jobs < 0) {
      throw new IllegalArgumentException("-j: the points run at once must be at least 1 (0: one per core), got "
          + jobs);
    }
    return switch (name) {
      case "local" -> new LocalExecutor(jobs == 0 ? Runtime.getRuntime().availableProcessors() : jobs, progress,
          Duration.ofSeconds(10));
      // SLURM: wire org.llmnpu.flow.slurm's executor here when the slurm branch is merged.
      case "slurm" -> throw new IllegalArgumentException("--executor slurm: the Slurm executor is not in this build "
          + "(it comes with the slurm branch); allowed here: local");
      default -> throw new IllegalArgumentException("--executor: '" + name + "' is not allowed; allowed: "
          + String.join(", ", NAMES));
    };
  }
}
