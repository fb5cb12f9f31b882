package org.llmnpu.flow.graph;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * How long a job graph would take on {@code workers} idle cores, from the CPU time each job used: the figure of a run
 * on a shared machine that does not depend on its load. Each job takes its {@link JobCpu#seconds()} on one core (the
 * jobs' tools — Yosys, ABC, OpenSTA, the Verilator models — are single-threaded; a Verilator build's {@code make -j}
 * may use two, so the figure is an upper bound for it) and the jobs start as {@link JobRunner} starts them: whenever a
 * core is free, the first job in declaration order whose dependencies have ended. A cached or skipped job takes 0 s.
 *
 * @param workers      cores
 * @param seconds      the schedule's length: when its last job ends
 * @param cpuSeconds   the jobs' CPU time together
 * @param criticalPath the jobs whose ends the last job waited for, first to last: each job's dependency that ended
 *                     last, or, when it waited for a core, the job that freed it
 */
public record JobSchedule(int workers, double seconds, double cpuSeconds, List<String> criticalPath) {
  public JobSchedule {
    criticalPath = List.copyOf(criticalPath);
  }

  /** The schedule of {@code run}'s jobs (the goals' closure, as the runner ran them) on {@code workers} cores. */
  public static JobSchedule of(List<? extends Job<?>> goals, JobRun run, int workers) {
    Map<String, Double> cpu = new HashMap<>();
    run.outcomes().forEach(o -> cpu.put(o.id(), o.status() == JobOutcome.Status.RAN ? o.cpu().seconds() : 0.0));
    return of(JobRunner.closure(goals), cpu, workers);
  }

  /**
   * The schedule of {@code jobs} (dependencies before dependents, in the runner's order) taking {@code cpuSeconds}
   * each (a job not in the map takes 0 s) on {@code workers} cores.
   */
  public static JobSchedule of(List<? extends Job<?>> jobs, Map<String, Double> cpuSeconds, int workers) {
    if (workers < 1) {
      throw new IllegalArgumentException("workers: at least 1, got " + workers);
    }
    Map<String, Double> end = new HashMap<>();
    Map<String, String> waitedFor = new HashMap<>();
    record Running(String id, double end) {
    }
    PriorityQueue<Running> running = new PriorityQueue<>((a, b) -> Double.compare(a.end(), b.end()));
    List<Job<?>> pending = new ArrayList<>(jobs);
    double now = 0;
    double total = 0;
    String freedBy = null;
    while (!pending.isEmpty() || !running.isEmpty()) {
      for (var it = pending.iterator(); it.hasNext() && running.size() < workers; ) {
        Job<?> j = it.next();
        if (!j.deps().stream().allMatch(d -> end.containsKey(d.id()))) {
          continue;
        }
        it.remove();
        double cpu = Math.max(0, cpuSeconds.getOrDefault(j.id(), 0.0));
        total += cpu;
        String lastDep = j.deps().stream().map(Job::id).max((a, b) -> Double.compare(end.get(a), end.get(b)))
            .orElse(null);
        boolean waitedForCore = freedBy != null && (lastDep == null || end.get(lastDep) < now);
        if (waitedForCore || lastDep != null) {
          waitedFor.put(j.id(), waitedForCore ? freedBy : lastDep);
        }
        running.add(new Running(j.id(), now + cpu));
      }
      if (running.isEmpty()) {
        throw new IllegalStateException("jobs whose dependencies are not in the schedule: "
            + pending.stream().map(Job::id).toList());
      }
      Running r = running.poll();
      now = r.end();
      end.put(r.id(), now);
      freedBy = r.id();
    }
    String last = end.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(null);
    List<String> path = new ArrayList<>();
    for (String j = last; j != null && !path.contains(j); j = waitedFor.get(j)) {
      if (cpuSeconds.getOrDefault(j, 0.0) > 0 || path.isEmpty()) {
        path.add(j);
      }
    }
    Collections.reverse(path);
    return new JobSchedule(workers, now, total, path);
  }

  /** {@code 612.3 s on 2 idle cores (CPU floor 1180.2 s / 2 = 590.1 s); critical path synth:npu -> ... -> write}. */
  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%.1f s on %d idle %s (CPU floor %.1f s / %d = %.1f s); critical path %s",
        seconds, workers, workers == 1 ? "core" : "cores", cpuSeconds, workers, cpuSeconds / workers,
        String.join(" -> ", criticalPath));
  }
}
