package org.llmnpu.flow.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.tools.ExternalTool;
import org.llmnpu.reports.ppa.ContentCache;

class JobRunnerTest {
  @TempDir
  Path dir;

  private final List<String> lines = Collections.synchronizedList(new ArrayList<>());

  private JobRunner runner(int workers) {
    return new JobRunner(workers, new ContentCache(dir.resolve("cache")), lines::add, Duration.ofMillis(50));
  }

  @Test
  void dependenciesRunFirstAndTheirResultsReachTheDependents() throws Exception {
    List<String> order = Collections.synchronizedList(new ArrayList<>());
    Job<Integer> a = Job.uncached("a", List.of(), List.of("2"), c -> {
      order.add("a");
      return 2;
    });
    Job<Integer> b = Job.uncached("b", List.of(a), List.of(), c -> {
      order.add("b");
      return c.get(a) * 10;
    });
    Job<Integer> d = Job.uncached("d", List.of(a, b), List.of(), c -> {
      order.add("d");
      return c.get(a) + c.get(b);
    });
    JobRun run = runner(2).run(List.of(d));
    assertEquals(List.of("a", "b", "d"), order);
    assertEquals(22, run.result(d));
    assertEquals(List.of("a", "b", "d"), run.outcomes().stream().map(JobOutcome::id).toList());
    assertTrue(run.allOk());
  }

  @Test
  void aJobDeclaredEarlierStartsFirstWhenItGetsReadyLater() throws Exception {
    List<String> order = Collections.synchronizedList(new ArrayList<>());
    Job<String> a = Job.uncached("a", List.of(), List.of(), c -> {
      order.add("a");
      return "a";
    });
    Job<String> e = Job.uncached("e", List.of(a), List.of(), c -> {
      order.add("e");
      return "e";
    });
    Job<String> late = Job.uncached("late", List.of(), List.of(), c -> {
      order.add("late");
      return "late";
    });
    runner(1).run(List.of(e, late));
    assertEquals(List.of("a", "e", "late"), order);
  }

  @Test
  void aCachedJobWhoseInputsDidNotChangeNeverRunsAgain() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    AtomicInteger downstream = new AtomicInteger();
    java.util.function.Function<String, Job<String>> build = input -> {
      Job<String> src = Job.cached("src", List.of(), List.of(input), JobCodec.text("v.txt"), c -> {
        runs.incrementAndGet();
        return input.length() > 3 ? "long" : "short";
      });
      return Job.cached("use", List.of(src), List.of(), JobCodec.text("u.txt"), c -> {
        downstream.incrementAndGet();
        return "uses " + c.get(src);
      });
    };
    JobRun first = runner(1).run(List.of(build.apply("abcd")));
    assertEquals("uses long", first.result(build.apply("abcd")));
    assertEquals(JobOutcome.Status.RAN, first.outcomes().get(1).status());
    JobRun second = runner(1).run(List.of(build.apply("abcd")));
    assertEquals(List.of(JobOutcome.Status.CACHED, JobOutcome.Status.CACHED),
        second.outcomes().stream().map(JobOutcome::status).toList());
    assertEquals("uses long", second.result(build.apply("abcd")));
    assertEquals(1, runs.get());
    // a changed input reruns the job; its result is the same, so the dependent stays cached
    JobRun third = runner(1).run(List.of(build.apply("wxyz")));
    assertEquals(List.of(JobOutcome.Status.RAN, JobOutcome.Status.CACHED),
        third.outcomes().stream().map(JobOutcome::status).toList());
    assertEquals(2, runs.get());
    assertEquals(1, downstream.get());
    // a changed result reruns the dependent
    JobRun fourth = runner(1).run(List.of(build.apply("ab")));
    assertEquals(List.of(JobOutcome.Status.RAN, JobOutcome.Status.RAN),
        fourth.outcomes().stream().map(JobOutcome::status).toList());
    assertEquals(2, downstream.get());
  }

  @Test
  void aFailingJobIsNamedWithItsCauseItsDependentsSkippedTheOthersRun() throws Exception {
    Job<String> bad = Job.cached("synth:bad", List.of(), List.of(), JobCodec.text("x"), c -> {
      throw new IllegalStateException("yosys exited with code 1");
    });
    Job<String> after = Job.uncached("report", List.of(bad), List.of(), c -> "never");
    Job<String> other = Job.uncached("other", List.of(), List.of(), c -> "fine");
    JobRun run = runner(2).run(List.of(after, other));
    JobOutcome failed = run.outcome(bad);
    assertEquals(JobOutcome.Status.FAILED, failed.status());
    assertTrue(failed.cause().startsWith("IllegalStateException: yosys exited with code 1 (at JobRunnerTest.java:"),
        failed.cause());
    assertEquals(JobOutcome.Status.SKIPPED, run.outcome(after).status());
    assertTrue(run.outcome(after).cause().contains("synth:bad"), run.outcome(after).cause());
    assertEquals("fine", run.result(other));
    assertEquals(List.of(failed), run.failures());
    assertTrue(lines.stream().anyMatch(l -> l.contains("synth:bad: FAILED after") && l.contains("yosys exited")),
        lines.toString());
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> run.result(after));
    assertTrue(e.getMessage().contains("skipped"), e.getMessage());
    // nothing of the failure was cached: a rerun runs the job again
    assertEquals(JobOutcome.Status.FAILED, runner(1).run(List.of(bad)).outcome(bad).status());
  }

  @Test
  void independentJobsRunAtOnceWithProgressLines() throws Exception {
    CountDownLatch both = new CountDownLatch(2);
    Job.Body<String> meet = c -> {
      both.countDown();
      if (!both.await(20, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the other job never ran alongside");
      }
      Thread.sleep(150);
      return "met";
    };
    Job<String> x = Job.uncached("x", List.of(), List.of(), meet);
    Job<String> y = Job.uncached("y", List.of(), List.of(), meet);
    JobRun run = runner(2).run(List.of(x, y));
    assertTrue(run.allOk(), run.outcomes().toString());
    assertTrue(lines.stream().anyMatch(l -> l.matches("\\[\\s*[0-9.]+ s\\] x: running for [0-9.]+s")), lines.toString());
  }

  @Test
  void undeclaredInputsAndDuplicateIdsAreRefused() throws Exception {
    Job<Integer> a = Job.uncached("a", List.of(), List.of(), c -> 1);
    Job<Integer> sneaky = Job.uncached("sneaky", List.of(), List.of(), c -> c.get(a));
    JobOutcome o = runner(1).run(List.of(a, sneaky)).outcome(sneaky);
    assertEquals(JobOutcome.Status.FAILED, o.status());
    assertTrue(o.cause().contains("does not declare"), o.cause());
    Job<Integer> twin = Job.uncached("a", List.of(), List.of(), c -> 2);
    assertThrows(IllegalArgumentException.class, () -> runner(1).run(List.of(a, twin)));
  }

  /** A shell loop of about half a second of CPU, as a tool the job starts. */
  private static final List<String> BUSY_TOOL = List.of("sh", "-c",
      "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done");

  @Test
  void eachJobIsChargedTheCpuOfItsOwnToolsAndThread() throws Exception {
    Job<String> tool = Job.uncached("tool", List.of(), List.of(), c -> {
      ExternalTool.Result r = ExternalTool.run(BUSY_TOOL, dir, Duration.ofMinutes(2));
      assertEquals(0, r.exitCode());
      ExternalTool.run(List.of("sh", "-c", "exit 3"), dir, Duration.ofMinutes(1));
      return "ran";
    });
    Job<Long> busy = Job.uncached("busy", List.of(), List.of(), c -> {
      var mx = ManagementFactory.getThreadMXBean();
      long t = mx.getCurrentThreadCpuTime();
      long x = 0;
      while (mx.getCurrentThreadCpuTime() - t < 200_000_000L) { // 0.2 s of this thread's CPU
        x += Long.numberOfTrailingZeros(x + t);
      }
      return x;
    });
    Job<String> idle = Job.uncached("idle", List.of(), List.of(), c -> "nothing");
    JobRun run = runner(2).run(List.of(tool, busy, idle));
    JobCpu t = run.outcome(tool).cpu();
    JobCpu j = run.outcome(busy).cpu();
    JobCpu i = run.outcome(idle).cpu();
    // the busy tool ran concurrently with the busy thread: each is charged its own CPU, not the other's
    assertEquals(2, t.toolProcesses(), t.toString());
    assertTrue(t.toolSeconds() > 0.1 && t.toolSeconds() < 5, t.toString());
    assertTrue(t.threadSeconds() < 0.25, "the job that waits for its tool spends little of its own: " + t);
    assertEquals(0, j.toolProcesses(), j.toString());
    assertEquals(0.0, j.toolSeconds(), j.toString());
    assertTrue(j.threadSeconds() >= 0.2 && j.threadSeconds() < 1, j.toString());
    assertTrue(i.seconds() < 0.1, i.toString());
    assertTrue(lines.stream().anyMatch(l -> l.contains("tool: done in") && l.contains("CPU ")
        && l.contains("in 2 processes")), String.join("\n", lines));
    // outside a job, tools are not metered: the command runs as it is
    assertEquals("x", ExternalTool.run(List.of("sh", "-c", "printf x"), dir, Duration.ofMinutes(1)).output());
  }
}
