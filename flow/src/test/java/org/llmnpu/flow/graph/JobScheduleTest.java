package org.llmnpu.flow.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link JobSchedule}: the runner's list schedule of jobs' CPU times on idle cores, and its critical path. */
class JobScheduleTest {
  private static Job<String> job(String id, Job<?>... deps) {
    return Job.uncached(id, List.of(deps), List.of(), ctx -> id);
  }

  private final Job<String> a = job("a");
  private final Job<String> b = job("b");
  private final Job<String> c = job("c", a);
  private final Job<String> d = job("d", b);
  private final Map<String, Double> cpu = Map.of("a", 10.0, "b", 4.0, "c", 5.0, "d", 3.0);

  @Test
  void twoCoresRunIndependentJobsSideBySide() {
    JobSchedule s = JobSchedule.of(List.of(a, b, c, d), cpu, 2);
    // a 0-10, b 0-4, d 4-7, c 10-15
    assertEquals(15.0, s.seconds(), 1e-9);
    assertEquals(22.0, s.cpuSeconds(), 1e-9);
    assertEquals(List.of("a", "c"), s.criticalPath());
    assertEquals("15.0 s on 2 idle cores (CPU floor 22.0 s / 2 = 11.0 s); critical path a -> c", s.toString());
  }

  @Test
  void oneCoreRunsThemInDeclarationOrderAsTheyGetReady() {
    JobSchedule s = JobSchedule.of(List.of(a, b, c, d), cpu, 1);
    // a 0-10, b 10-14, c 14-19 (declared before d, both ready), d 19-22: each waited for the core the one before freed
    assertEquals(22.0, s.seconds(), 1e-9);
    assertEquals(List.of("a", "b", "c", "d"), s.criticalPath());
  }

  @Test
  void aJobWaitingForTwoDependenciesStartsAfterTheLaterAndCachedJobsTakeNoTime() {
    Job<String> e = job("e", c, d);
    JobSchedule s = JobSchedule.of(List.of(a, b, c, d, e), Map.of("a", 10.0, "b", 4.0, "c", 0.0, "d", 3.0, "e", 2.0),
        2);
    assertEquals(12.0, s.seconds(), 1e-9);
    assertEquals(List.of("a", "e"), s.criticalPath());
  }

  @Test
  void badInputIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> JobSchedule.of(List.of(a), cpu, 0));
    assertThrows(IllegalStateException.class, () -> JobSchedule.of(List.of(c), cpu, 1));
  }
}
