package org.llmnpu.flow.exec;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.llmnpu.hdl.tools.ProcessCleanup;

/**
 * Runs tasks as processes on this machine, {@code workers} at a time (default: every core; Yosys, OpenSTA and the
 * cycle model are single-threaded, so one task a core keeps the machine busy).
 *
 * <p>Each start of a task appends its standard output and error to {@code outDir/stdout.log} and
 * {@code outDir/stderr.log}. A task is done when its result file exists after its process ended; a process that
 * ended with exit code 0 but wrote no result counts as failed. While tasks run, a progress line per running task
 * (id, attempt, elapsed time) is printed every {@code progressPeriod}, so a long step is never silent. When the
 * calling thread is interrupted the running processes are killed with their children and the interrupt is
 * rethrown; results already written stay.
 */
public final class LocalExecutor implements PointExecutor {
  private final int workers;
  private final PrintStream progress;
  private final Duration progressPeriod;
  private final Map<String, Running> running = new ConcurrentHashMap<>();

  private record Running(int attempt, long startNanos) {
  }

  /**
   * @param workers tasks run at once, at least 1
   * @param progress where the progress lines go (e.g. {@code System.err})
   * @param progressPeriod how often the running tasks are listed
   */
  public LocalExecutor(int workers, PrintStream progress, Duration progressPeriod) {
    if (workers < 1) {
      throw new IllegalArgumentException("workers must be at least 1, got " + workers);
    }
    this.workers = workers;
    this.progress = progress;
    this.progressPeriod = progressPeriod;
  }

  /** One task per core, progress every 10 s on standard error. */
  public static LocalExecutor onAllCores() {
    return new LocalExecutor(Runtime.getRuntime().availableProcessors(), System.err, Duration.ofSeconds(10));
  }

  @Override
  public String name() {
    return "local";
  }

  public int workers() {
    return workers;
  }

  @Override
  public List<PointOutcome> run(List<PointTask> tasks, int maxAttempts) throws IOException, InterruptedException {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
    }
    ExecutorService pool = Executors.newFixedThreadPool(workers, r -> daemon(r, "flow-local"));
    ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "flow-progress"));
    ticker.scheduleAtFixedRate(this::printProgress, progressPeriod.toMillis(), progressPeriod.toMillis(),
        TimeUnit.MILLISECONDS);
    List<Future<PointOutcome>> futures = new ArrayList<>();
    try {
      for (PointTask t : tasks) {
        futures.add(pool.submit(() -> runWithRetries(t, maxAttempts)));
      }
      List<PointOutcome> outcomes = new ArrayList<>();
      for (Future<PointOutcome> f : futures) {
        outcomes.add(f.get());
      }
      return outcomes;
    } catch (ExecutionException e) {
      throw new IOException("local executor: " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
      ticker.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  private PointOutcome runWithRetries(PointTask t, int maxAttempts) throws IOException, InterruptedException {
    if (Files.exists(t.resultFile())) {
      return new PointOutcome(t.id(), PointOutcome.Status.DONE, 0, "");
    }
    Files.createDirectories(t.outDir());
    String failure = "";
    for (int attempt = 1; attempt <= maxAttempts; attempt++) {
      running.put(t.id(), new Running(attempt, System.nanoTime()));
      try {
        failure = runOnce(t);
      } finally {
        running.remove(t.id());
      }
      if (failure.isEmpty()) {
        return new PointOutcome(t.id(), PointOutcome.Status.DONE, attempt, "");
      }
      progress.printf("flow: %s attempt %d of %d failed: %s%n", t.id(), attempt, maxAttempts, firstLine(failure));
    }
    return new PointOutcome(t.id(), PointOutcome.Status.FAILED, maxAttempts, failure);
  }

  /** Runs the task's process once; returns "" when its result exists afterwards, else the cause. */
  private static String runOnce(PointTask t) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(t.command()).directory(t.outDir().toFile());
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(t.outDir().resolve("stdout.log").toFile()));
    pb.redirectError(ProcessBuilder.Redirect.appendTo(t.outDir().resolve("stderr.log").toFile()));
    Process p = pb.start();
    ProcessCleanup.track(p);
    int code;
    try {
      code = p.waitFor();
    } catch (InterruptedException e) {
      ProcessCleanup.killTree(p);
      throw e;
    } finally {
      ProcessCleanup.forget(p);
    }
    if (Files.exists(t.resultFile())) {
      return "";
    }
    String cause = code == 0 ? "exit code 0 but no " + PointTask.RESULT_FILE : "exit code " + code;
    return cause + stderrTail(t.outDir().resolve("stderr.log"));
  }

  static String stderrTail(Path log) throws IOException {
    if (!Files.exists(log)) {
      return "";
    }
    List<String> lines = Files.readAllLines(log);
    List<String> tail = lines.subList(Math.max(0, lines.size() - 5), lines.size());
    return tail.isEmpty() ? "" : "; stderr ends: " + String.join(" | ", tail);
  }

  private void printProgress() {
    long now = System.nanoTime();
    running.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> progress.printf(
        "flow: %s running %s (attempt %d)%n", e.getKey(), elapsed(now - e.getValue().startNanos()),
        e.getValue().attempt()));
  }

  static String elapsed(long nanos) {
    long s = TimeUnit.NANOSECONDS.toSeconds(nanos);
    return s >= 60 ? String.format("%dm%02ds", s / 60, s % 60) : s + "s";
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }
}
