package org.llmnpu.flow.slurm;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.llmnpu.flow.exec.PointExecutor;
import org.llmnpu.flow.exec.PointOutcome;
import org.llmnpu.flow.exec.PointTask;

/**
 * Runs tasks as one Slurm job array per attempt: the tasks whose result is missing become array tasks
 * {@code 0..n-1} ({@code sbatch --parsable --array=0-(n-1)[%limit]}), each running its command line in its output
 * directory on some node (see {@link JobArrayFiles} for the script and the files it writes). The output
 * directories and the job directory ({@link SlurmSettings#jobDir()}) must be on storage the nodes share with the
 * submitting machine, and the command must run there (a shared install of the toolkit, or a container image).
 *
 * <p>While an array runs, {@code squeue} is polled every {@link SlurmSettings#poll()}, and a progress line is
 * printed whenever the count of pending, running and ended tasks changes. When the array has ended, a task is done
 * when its result file exists; every other task gets a failure line with its cause (exit code and the end of its
 * {@code stderr.log}, or Slurm's state and reason when the script was killed before it could write its exit code),
 * and the failed tasks alone are submitted again as a new, smaller array, up to {@code maxAttempts} starts of
 * each. Tasks whose result already exists are not submitted at all, so a rerun only runs the missing points.
 *
 * <p>When the calling thread is interrupted, or the JVM is stopped (Ctrl-C), the running array is cancelled with
 * {@code scancel}; results already written stay. {@code sbatch} missing or the controller unreachable is an
 * {@link IOException} naming the cause and {@code scripts/setup-slurm.sh}.
 */
public final class SlurmExecutor implements PointExecutor {
  /** The name Slurm shows for the arrays ({@code squeue}'s NAME column). */
  public static final String JOB_NAME = "llmnpu-flow";

  private final SlurmSettings settings;
  private final PrintStream progress;
  private final SlurmCommands slurm;

  /**
   * @param settings partition, time limit, CPUs, polling and directories
   * @param progress where the progress lines go (e.g. {@code System.err})
   */
  public SlurmExecutor(SlurmSettings settings, PrintStream progress) {
    this.settings = settings;
    this.progress = progress;
    this.slurm = new SlurmCommands(settings);
  }

  /** Settings from the {@code LLMNPU_SLURM_*} environment, progress on standard error. */
  public static SlurmExecutor fromEnvironment() {
    return new SlurmExecutor(SlurmSettings.fromEnvironment(System.getenv()), System.err);
  }

  @Override
  public String name() {
    return "slurm";
  }

  public SlurmSettings settings() {
    return settings;
  }

  @Override
  public List<PointOutcome> run(List<PointTask> tasks, int maxAttempts) throws IOException, InterruptedException {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
    }
    int[] attempts = new int[tasks.size()];
    String[] failures = new String[tasks.size()];
    List<Integer> missing = new ArrayList<>();
    for (int i = 0; i < tasks.size(); i++) {
      if (!Files.exists(tasks.get(i).resultFile())) {
        missing.add(i);
      }
    }
    for (int attempt = 1; attempt <= maxAttempts && !missing.isEmpty(); attempt++) {
      List<PointTask> batch = missing.stream().map(tasks::get).toList();
      Map<Integer, String> causes = runArray(batch, attempt, maxAttempts);
      List<Integer> failed = new ArrayList<>();
      for (int j = 0; j < batch.size(); j++) {
        int i = missing.get(j);
        attempts[i] = attempt;
        String cause = causes.get(j);
        if (cause != null) {
          failures[i] = cause;
          failed.add(i);
          progress.printf("flow: %s attempt %d of %d failed: %s%n", batch.get(j).id(), attempt, maxAttempts,
              cause);
        }
      }
      missing = failed;
    }
    List<PointOutcome> outcomes = new ArrayList<>();
    for (int i = 0; i < tasks.size(); i++) {
      boolean done = Files.exists(tasks.get(i).resultFile());
      outcomes.add(new PointOutcome(tasks.get(i).id(), done ? PointOutcome.Status.DONE : PointOutcome.Status.FAILED,
          attempts[i], done ? "" : failures[i]));
    }
    return outcomes;
  }

  /** Submits the tasks as one array and waits for it; returns the cause of each task (by index) left without result. */
  private Map<Integer, String> runArray(List<PointTask> batch, int attempt, int maxAttempts)
      throws IOException, InterruptedException {
    for (PointTask t : batch) {
      Files.createDirectories(t.outDir());
      Files.deleteIfExists(t.outDir().resolve(JobArrayFiles.EXIT_CODE_FILE));
    }
    Path jobDir = settings.jobDir() != null ? settings.jobDir()
        : batch.get(0).outDir().toAbsolutePath().getParent().resolve("slurm-jobs");
    JobArrayFiles files = JobArrayFiles.write(jobDir, batch);
    String arrayId = slurm.submitArray(files, batch.size(), JOB_NAME);
    progress.printf("flow: slurm array %s: %d task(s) submitted (attempt %d of %d), files in %s%n", arrayId,
        batch.size(), attempt, maxAttempts, files.dir());
    Thread cancelOnExit = new Thread(() -> slurm.cancel(arrayId), "flow-slurm-cancel");
    Runtime.getRuntime().addShutdownHook(cancelOnExit);
    try {
      awaitEnd(arrayId, batch.size());
    } catch (InterruptedException | IOException e) {
      slurm.cancel(arrayId);
      progress.printf("flow: slurm array %s cancelled (%s)%n", arrayId,
          e instanceof InterruptedException ? "interrupted" : e.getMessage());
      throw e;
    } finally {
      removeHook(cancelOnExit);
    }
    Map<Integer, String> causes = new TreeMap<>();
    Map<Integer, String> endStates = null;
    for (int j = 0; j < batch.size(); j++) {
      PointTask t = batch.get(j);
      if (Files.exists(t.resultFile())) {
        continue;
      }
      if (endStates == null) {
        endStates = slurm.endStates(arrayId);
      }
      causes.put(j, causeOfFailure(t, endStates.get(j), files.slurmLog(arrayId, j)));
    }
    return causes;
  }

  /** Polls the queue until no task of the array is left in it, printing a line whenever the counts change. */
  private void awaitEnd(String arrayId, int size) throws IOException, InterruptedException {
    long start = System.nanoTime();
    long failingSince = -1;
    String last = "";
    while (true) {
      Map<Integer, String> queued;
      try {
        queued = slurm.queuedStates(arrayId);
        failingSince = -1;
      } catch (IOException e) {
        // the controller may be restarting: give it a while before giving up on the array
        failingSince = failingSince < 0 ? System.nanoTime() : failingSince;
        if (System.nanoTime() - failingSince > TimeUnit.SECONDS.toNanos(60)) {
          throw new IOException("slurm array " + arrayId + ": the queue has not answered for 60 s: "
              + e.getMessage() + "; " + SlurmCommands.SETUP_HINT, e);
        }
        Thread.sleep(settings.poll().toMillis());
        continue;
      }
      String counts = counts(queued, size);
      if (!counts.equals(last)) {
        progress.printf("flow: slurm array %s: %s (%s)%n", arrayId, counts, elapsed(System.nanoTime() - start));
        last = counts;
      }
      if (queued.isEmpty()) {
        return;
      }
      Thread.sleep(settings.poll().toMillis());
    }
  }

  /** "2 pending, 1 running, 3 ended": the queue's states in lower case, and the tasks no longer queued. */
  static String counts(Map<Integer, String> queued, int size) {
    Map<String, Integer> byState = new TreeMap<>();
    queued.values().forEach(s -> byState.merge(s.toLowerCase(java.util.Locale.ROOT), 1, Integer::sum));
    List<String> parts = new ArrayList<>();
    byState.forEach((state, n) -> parts.add(n + " " + state));
    parts.add((size - queued.size()) + " ended");
    return String.join(", ", parts);
  }

  /** Why a task has no result: its exit code and stderr, or Slurm's word when the script could not finish. */
  private static String causeOfFailure(PointTask t, String slurmState, Path slurmLog) throws IOException {
    Path exitCodeFile = t.outDir().resolve(JobArrayFiles.EXIT_CODE_FILE);
    if (Files.exists(exitCodeFile)) {
      String code = Files.readString(exitCodeFile).strip();
      String cause = code.equals("0") ? "exit code 0 but no " + PointTask.RESULT_FILE : "exit code " + code;
      return cause + tail(t.outDir().resolve("stderr.log"), "stderr");
    }
    return "ended without an exit code, Slurm state " + (slurmState == null ? "unknown (no longer remembered)"
        : slurmState) + tail(slurmLog, "slurm log") + tail(t.outDir().resolve("stderr.log"), "stderr");
  }

  /** "; NAME ends: a | b" with the last five lines of a log, or "" when it is missing or empty. */
  private static String tail(Path log, String name) throws IOException {
    if (!Files.exists(log)) {
      return "";
    }
    List<String> lines = Files.readAllLines(log);
    List<String> last = lines.subList(Math.max(0, lines.size() - 5), lines.size());
    return last.isEmpty() ? "" : "; " + name + " ends: " + String.join(" | ", last);
  }

  private static String elapsed(long nanos) {
    long s = TimeUnit.NANOSECONDS.toSeconds(nanos);
    return s >= 60 ? String.format("%dm%02ds", s / 60, s % 60) : s + "s";
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // the JVM is already shutting down: the hook runs and cancels an array that has ended, which is harmless
    }
  }
}
