package org.llmnpu.flow.slurm.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.flow.dse.DseRun;
import org.llmnpu.flow.dse.SweepFile;
import org.llmnpu.flow.exec.LocalExecutor;
import org.llmnpu.flow.exec.PointExecutor;
import org.llmnpu.flow.exec.PointOutcome;
import org.llmnpu.flow.exec.PointTask;
import org.llmnpu.flow.slurm.SlurmCluster;
import org.llmnpu.flow.slurm.SlurmExecutor;
import org.llmnpu.flow.slurm.SlurmSettings;
import org.llmnpu.hdl.bench.BenchRecord;

/**
 * Wall time of a 16-task sweep whose tasks each take about 5 s ({@code sleep 5}, then an atomic result file), run
 * by the local executor with 1 and 2 workers and as one Slurm job array on this machine's single-node cluster
 * ({@code scripts/setup-slurm.sh}; 2 CPUs, one array task per CPU). Sleeping tasks keep the other load of a shared
 * machine out of the figures, so the difference from 16·5 s / slots is the executor's own overhead.
 *
 * <p>{@link #sixteenPointSweep()} times a real sweep the same three ways: {@code flow/examples/sweep-16.yaml}'s 16
 * points (4 syntheses, each point's cycle model), every executor on an empty PPA cache of its own, so each run
 * synthesizes again; its wall times include the machine's other load, printed beside them.
 *
 * <p>Run: {@code mvn -q -o -pl flow -am test -Dbench -Dtest=SlurmVsLocalBench -Dsurefire.failIfNoSpecifiedTests=false}
 * (about 3 minutes for the sleeping tasks, plus the sweep's three runs).
 */
@ExtendWith(BenchRecord.class)
class SlurmVsLocalBench {
  private static final int TASKS = 16;
  private static final int TASK_SECONDS = 5;

  @TempDir Path dir;

  @Test
  void sixteenFiveSecondTasks() throws Exception {
    PrintStream quiet = new PrintStream(new ByteArrayOutputStream());
    System.out.printf("%d tasks of %d s each (sleep), %d cores%n%n", TASKS, TASK_SECONDS,
        Runtime.getRuntime().availableProcessors());
    System.out.printf("%-28s %6s %10s %10s %9s%n", "executor", "slots", "wall s", "ideal s", "overhead");
    measure("local, 1 worker", 1, new LocalExecutor(1, quiet, Duration.ofSeconds(60)));
    measure("local, 2 workers", 2, new LocalExecutor(2, quiet, Duration.ofSeconds(60)));
    SlurmSettings settings = SlurmSettings.defaults().with("poll", "1").with("time", "5");
    measure("slurm array, 2 CPUs", 2, new SlurmExecutor(settings, quiet));
    System.out.printf("%nideal = ceil(%d / slots) * %d s; overhead = wall / ideal - 1%n", TASKS, TASK_SECONDS);
  }

  @Test
  void sixteenPointSweep() throws Exception {
    SlurmCluster.require();
    SweepFile sweep = SweepFile.read(Path.of("examples", "sweep-16.yaml").toAbsolutePath());
    PrintStream quiet = new PrintStream(new ByteArrayOutputStream());
    System.out.printf("flow/examples/sweep-16.yaml: 16 points, 4 distinct RTL configurations (one synthesis each), "
        + "evaluation %s; each executor on an empty PPA cache; %d cores%n%n", sweep.evaluation(),
        Runtime.getRuntime().availableProcessors());
    System.out.printf("%-22s %6s %9s %10s %18s%n", "executor", "slots", "wall s", "vs 1 core", "load avg before");
    double one = sweep("local, 1 worker", 1, sweep, new LocalExecutor(1, quiet, Duration.ofSeconds(600)), 0);
    sweep("local, 2 workers", 2, sweep, new LocalExecutor(2, quiet, Duration.ofSeconds(600)), one);
    SlurmSettings settings = SlurmSettings.defaults().with("job-dir", dir.resolve("jobs").toString())
        .with("poll", "1");
    sweep("slurm array, 2 CPUs", 2, sweep, new SlurmExecutor(settings, quiet), one);
    for (String f : List.of("pareto.json", "points.csv")) {
      String local = Files.readString(dir.resolve("sweep-local-1").resolve(f));
      assertEquals(local, Files.readString(dir.resolve("sweep-local-2").resolve(f)), f);
      assertEquals(local, Files.readString(dir.resolve("sweep-slurm-2").resolve(f)), f);
    }
    System.out.printf("%nthe three runs' pareto.json and points.csv are byte-identical%n");
  }

  private double sweep(String name, int slots, SweepFile sweep, PointExecutor executor, double oneCore)
      throws IOException, InterruptedException {
    String load = Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    List<String> java = new ArrayList<>();
    for (String a : DseRun.javaCommand()) {
      if (!a.startsWith("-Dllmnpu.ppa.cache=")) {
        java.add(a);
      }
    }
    java.add(1, "-Dllmnpu.ppa.cache=" + Files.createDirectories(dir.resolve("cache-" + executor.name() + "-" + slots)));
    long start = System.nanoTime();
    DseRun.Summary s = DseRun.run(sweep, dir.resolve("sweep-" + executor.name() + "-" + slots), executor, 1, java,
        new PrintStream(new ByteArrayOutputStream()));
    double wall = (System.nanoTime() - start) / 1e9;
    assertEquals(16, s.done().size(), "points done: " + s.done() + ", failed: " + s.failed());
    System.out.printf("%-22s %6d %9.1f %9.2fx %18s%n", name, slots, wall, oneCore == 0 ? 1 : oneCore / wall, load);
    return wall;
  }

  private void measure(String name, int slots, PointExecutor executor) throws IOException, InterruptedException {
    Path root = Files.createDirectories(dir.resolve(executor.name() + "-" + slots));
    List<PointTask> tasks = new ArrayList<>();
    for (int i = 0; i < TASKS; i++) {
      tasks.add(new PointTask("t" + i, List.of("sh", "-c", "sleep " + TASK_SECONDS
          + "; echo '{}' > result.json.tmp && mv result.json.tmp result.json"), root.resolve("t" + i)));
    }
    long start = System.nanoTime();
    List<PointOutcome> out = executor.run(tasks, 1);
    double wall = (System.nanoTime() - start) / 1e9;
    assertTrue(out.stream().allMatch(PointOutcome::done), out.toString());
    double ideal = Math.ceil((double) TASKS / slots) * TASK_SECONDS;
    System.out.printf("%-28s %6d %10.1f %10.1f %8.1f%%%n", name, slots, wall, ideal, 100 * (wall / ideal - 1));
  }
}
