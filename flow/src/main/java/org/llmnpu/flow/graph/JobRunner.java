package org.llmnpu.flow.graph;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.llmnpu.hdl.tools.ToolCpu;
import org.llmnpu.reports.ppa.ContentCache;

/**
 * Runs a job graph on this machine: every job whose dependencies have ended well starts as soon as one of
 * {@code workers} threads is free (the toolkit's heavy steps — Yosys, OpenSTA, Verilator's compiler and models — are
 * single-threaded processes, so one job a core keeps the machine busy), in the order the jobs were declared (declare
 * the longest first).
 *
 * <p><b>Cache.</b> A job's key is the SHA-256 of its id, its declared inputs and, per dependency, the dependency's id
 * and identity — the hash of a cached dependency's stored result (so a dependency that reran to the same result
 * leaves its dependents cached), else the dependency's own key. A cached job whose key is in the
 * {@link ContentCache} is not run: its result is decoded from the entry. A fresh result is stored by the cache's
 * atomic rename before any dependent starts, so an interrupted or failed run loses no finished work, and two runs
 * (threads or processes) that need the same absent entry compute it once (the cache's lock file).
 *
 * <p><b>Progress.</b> Each start and end is a line, the end with the job's CPU time ({@link JobCpu}: the tool
 * processes it started, metered by {@link ToolCpu}, and its own thread); every {@code progressPeriod} each running job
 * gets a line with its elapsed time, so a long synthesis is never silent. Lines go to one consumer, one at a time.
 *
 * <p><b>Failures.</b> A job that throws is FAILED with its cause (the exception, its causes and the first toolkit
 * source line it came from); the jobs depending on it are SKIPPED naming it; every other job still runs.
 */
public final class JobRunner {
  private static final String KEY_VERSION = "llmnpu flow job 1";

  private final int workers;
  private final ContentCache cache;
  private final Consumer<String> out;
  private final Duration progressPeriod;
  private final Map<String, Long> running = new ConcurrentHashMap<>();
  private long t0;

  /**
   * @param workers        jobs run at once, at least 1
   * @param cache          where cached jobs keep their results
   * @param out            receives the progress lines and the jobs' own lines
   * @param progressPeriod how often the running jobs are listed
   */
  public JobRunner(int workers, ContentCache cache, Consumer<String> out, Duration progressPeriod) {
    if (workers < 1) {
      throw new IllegalArgumentException("workers must be at least 1, got " + workers);
    }
    this.workers = workers;
    this.cache = cache;
    this.out = out;
    this.progressPeriod = progressPeriod;
  }

  /** Jobs at once when none is asked for: one per core. */
  public static int allCores() {
    return Runtime.getRuntime().availableProcessors();
  }

  private synchronized void print(String line) {
    out.accept(String.format(Locale.ROOT, "[%6.1f s] %s", (System.nanoTime() - t0) / 1e9, line));
  }

  /**
   * Runs {@code goals} and every job they depend on, and waits for all of them.
   *
   * @throws IllegalArgumentException when two different jobs share an id
   * @throws InterruptedException     when the calling thread is interrupted (the running jobs are interrupted too;
   *                                  finished results stay in the cache)
   */
  public JobRun run(List<? extends Job<?>> goals) throws InterruptedException {
    t0 = System.nanoTime();
    double cpu0 = ProcessCpu.seconds();
    List<Job<?>> jobs = closure(goals);
    Map<String, JobOutcome> outcomes = new HashMap<>();
    Map<String, Object> results = new HashMap<>();
    Map<String, String> identities = new HashMap<>();
    Set<Job<?>> started = new LinkedHashSet<>();
    ExecutorService pool = Executors.newFixedThreadPool(workers, r -> daemon(r, "flow-job"));
    CompletionService<Finished> done = new ExecutorCompletionService<>(pool);
    ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "flow-progress"));
    ticker.scheduleAtFixedRate(this::printRunning, progressPeriod.toMillis(), progressPeriod.toMillis(),
        TimeUnit.MILLISECONDS);
    int inFlight = 0;
    try {
      while (true) {
        for (Job<?> j : jobs) {
          if (started.contains(j) || outcomes.containsKey(j.id())) {
            continue;
          }
          boolean free = inFlight < workers;
          String failedDep = j.deps().stream().map(Job::id).filter(d -> outcomes.containsKey(d)
              && !outcomes.get(d).ok()).findFirst().orElse(null);
          if (failedDep != null) {
            outcomes.put(j.id(), new JobOutcome(j.id(), JobOutcome.Status.SKIPPED, 0, "",
                "not run: it depends on " + failedDep + ", which " + outcomes.get(failedDep).status().name()
                    .toLowerCase(Locale.ROOT), JobCpu.NONE));
            print(j.id() + ": skipped (" + failedDep + " did not end well)");
            continue;
          }
          if (!free || !j.deps().stream().allMatch(d -> outcomes.containsKey(d.id()))) {
            continue; // a job starts only on a free worker, so a job declared earlier that gets ready later goes first
          }
          String key = key(j, identities);
          Map<String, Object> inputs = new HashMap<>();
          j.deps().forEach(d -> inputs.put(d.id(), results.get(d.id())));
          started.add(j);
          inFlight++;
          done.submit(() -> execute(j, key, inputs));
        }
        if (inFlight == 0) {
          break;
        }
        Finished f = done.take().get();
        inFlight--;
        outcomes.put(f.outcome().id(), f.outcome());
        if (f.outcome().ok()) {
          results.put(f.outcome().id(), f.value());
          identities.put(f.outcome().id(), f.identity());
        }
      }
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("job runner: " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
      ticker.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
    List<JobOutcome> ordered = jobs.stream().map(j -> outcomes.get(j.id())).toList();
    return new JobRun(ordered, results, (System.nanoTime() - t0) / 1e9, ProcessCpu.seconds() - cpu0);
  }

  private record Finished(JobOutcome outcome, Object value, String identity) {
  }

  private Finished execute(Job<?> job, String key, Map<String, Object> inputs) {
    ToolCpu.Ledger tools = new ToolCpu.Ledger();
    ToolCpu.open(tools);
    long threadStart = threadCpuNanos();
    try {
      return execute(job, key, inputs, () -> new JobCpu(tools.seconds(), tools.processes(),
          threadStart < 0 ? Double.NaN : (threadCpuNanos() - threadStart) / 1e9));
    } finally {
      ToolCpu.close();
    }
  }

  /** This thread's CPU time (user + system), ns; -1 when the JVM cannot measure it. */
  private static long threadCpuNanos() {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    return mx.isCurrentThreadCpuTimeSupported() ? mx.getCurrentThreadCpuTime() : -1;
  }

  private Finished execute(Job<?> job, String key, Map<String, Object> inputs, Supplier<JobCpu> cpu) {
    long start = System.nanoTime();
    JobContext ctx = new JobContext() {
      @Override
      @SuppressWarnings("unchecked")
      public <U> U get(Job<U> dep) {
        if (!job.deps().contains(dep)) {
          throw new IllegalStateException("job " + job.id() + " reads the result of " + dep.id()
              + ", which it does not declare as a dependency");
        }
        return (U) inputs.get(dep.id());
      }

      @Override
      public void log(String line) {
        print(job.id() + ": " + line);
      }
    };
    try {
      if (!job.isCached()) {
        running.put(job.id(), start);
        print(job.id() + ": started");
        Object value = job.body().run(ctx);
        return ended(job, JobOutcome.Status.RAN, start, key, value, key, cpu.get());
      }
      var hit = cache.get(key);
      if (hit.isPresent()) {
        Object value = job.codec().decode(hit.get());
        print(job.id() + ": cached (" + key.substring(0, 12) + ")");
        return new Finished(new JobOutcome(job.id(), JobOutcome.Status.CACHED, 0, key, "", JobCpu.NONE), value,
            contentHash(hit.get()));
      }
      running.put(job.id(), start);
      print(job.id() + ": started");
      boolean[] ran = {false};
      Map<String, String> files = cache.getOrCompute(key, () -> {
        ran[0] = true;
        try {
          return encode(job, job.body().run(ctx));
        } catch (RuntimeException e) {
          throw e;
        } catch (Exception e) {
          throw new JobBodyException(e);
        }
      });
      Object value = job.codec().decode(files);
      return ended(job, ran[0] ? JobOutcome.Status.RAN : JobOutcome.Status.CACHED, start, key, value,
          contentHash(files), cpu.get());
    } catch (Throwable e) {
      Throwable cause = e instanceof JobBodyException ? e.getCause() : e;
      running.remove(job.id());
      double s = (System.nanoTime() - start) / 1e9;
      String why = describe(cause);
      JobCpu used = cpu.get();
      print(job.id() + ": FAILED after " + elapsed(s) + ", " + used + ": " + why);
      return new Finished(new JobOutcome(job.id(), JobOutcome.Status.FAILED, s, key, why, used), null, null);
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> Map<String, String> encode(Job<T> job, Object value) {
    return job.codec().encode((T) value);
  }

  private Finished ended(Job<?> job, JobOutcome.Status status, long start, String key, Object value, String id,
                         JobCpu cpu) {
    running.remove(job.id());
    double s = (System.nanoTime() - start) / 1e9;
    print(job.id() + ": " + (status == JobOutcome.Status.RAN ? "done in " + elapsed(s) + ", " + cpu
        : "cached (another run computed it meanwhile)"));
    return new Finished(new JobOutcome(job.id(), status, s, key, "", cpu), value, id);
  }

  /** Wraps a checked exception of a job's body through the cache's supplier. */
  private static final class JobBodyException extends RuntimeException {
    JobBodyException(Exception cause) {
      super(cause);
    }
  }

  /** The key of {@code job}: its id, inputs, and each dependency's id and identity. */
  static String key(Job<?> job, Map<String, String> identities) {
    List<String> parts = new ArrayList<>(List.of(KEY_VERSION, job.id()));
    parts.add("inputs " + job.inputs().size());
    parts.addAll(job.inputs());
    for (Job<?> d : job.deps()) {
      parts.add("dep " + d.id());
      parts.add(identities.get(d.id()));
    }
    return ContentCache.key(parts);
  }

  static String contentHash(Map<String, String> files) {
    List<String> parts = new ArrayList<>();
    new TreeMap<>(files).forEach((name, text) -> {
      parts.add(name);
      parts.add(text);
    });
    return "content " + ContentCache.key(parts);
  }

  /** The exception, its causes' messages, and the first toolkit source line outside this package. */
  static String describe(Throwable e) {
    StringBuilder s = new StringBuilder(e.getClass().getSimpleName());
    if (e.getMessage() != null) {
      s.append(": ").append(e.getMessage());
    }
    for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      if (c.getMessage() != null && !s.toString().contains(c.getMessage())) {
        s.append("; caused by ").append(c.getClass().getSimpleName()).append(": ").append(c.getMessage());
      }
    }
    for (StackTraceElement f : e.getStackTrace()) {
      if (f.getClassName().startsWith("org.llmnpu.") && !f.getClassName().equals(JobRunner.class.getName())
          && !f.getClassName().startsWith(JobRunner.class.getName() + "$")
          && f.getFileName() != null) {
        s.append(" (at ").append(f.getFileName()).append(':').append(f.getLineNumber()).append(')');
        break;
      }
    }
    return s.toString();
  }

  /** Every job the goals need, dependencies before dependents, otherwise in declaration order. */
  static List<Job<?>> closure(List<? extends Job<?>> goals) {
    Map<String, Job<?>> byId = new LinkedHashMap<>();
    for (Job<?> g : goals) {
      visit(g, byId);
    }
    return new ArrayList<>(byId.values());
  }

  private static void visit(Job<?> j, Map<String, Job<?>> byId) {
    Job<?> seen = byId.get(j.id());
    if (seen != null) {
      if (seen != j) {
        throw new IllegalArgumentException("two different jobs have the id " + j.id());
      }
      return;
    }
    for (Job<?> d : j.deps()) {
      visit(d, byId);
    }
    if (byId.containsKey(j.id()) && byId.get(j.id()) != j) {
      throw new IllegalArgumentException("two different jobs have the id " + j.id());
    }
    byId.put(j.id(), j);
  }

  private void printRunning() {
    long now = System.nanoTime();
    new TreeMap<>(running).forEach((id, start) -> print(id + ": running for " + elapsed((now - start) / 1e9)));
  }

  static String elapsed(double seconds) {
    long s = Math.round(seconds);
    return seconds < 60 ? String.format(Locale.ROOT, "%.1fs", seconds) : String.format(Locale.ROOT, "%dm%02ds",
        s / 60, s % 60);
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }
}
