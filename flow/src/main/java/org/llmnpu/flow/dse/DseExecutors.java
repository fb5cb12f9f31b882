package org.llmnpu.flow.dse;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import org.llmnpu.flow.exec.LocalExecutor;
import org.llmnpu.flow.exec.PointExecutor;
import org.llmnpu.flow.slurm.SlurmExecutor;
import org.llmnpu.flow.slurm.SlurmSettings;

/** The executors {@code npu dse --executor} names. */
public final class DseExecutors {
  /** The names {@code --executor} takes. */
  public static final List<String> NAMES = List.of("local", "slurm");

  private DseExecutors() {
  }

  /**
   * The executor {@code name} running {@code jobs} points at once: local, 0 for one per core; slurm, the job array's
   * {@code array-limit} (0: the settings' own), with the other settings from the environment
   * ({@link SlurmSettings#fromEnvironment}: {@code LLMNPU_SLURM_PARTITION}, ...).
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
      case "slurm" -> {
        SlurmSettings settings = SlurmSettings.fromEnvironment(System.getenv());
        yield new SlurmExecutor(jobs == 0 ? settings : settings.with("array-limit", String.valueOf(jobs)), progress);
      }
      default -> throw new IllegalArgumentException("--executor: '" + name + "' is not allowed; allowed: "
          + String.join(", ", NAMES));
    };
  }
}
