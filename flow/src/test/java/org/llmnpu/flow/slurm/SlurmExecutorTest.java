package org.llmnpu.flow.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.flow.exec.LocalExecutor;
import org.llmnpu.flow.exec.PointOutcome;
import org.llmnpu.flow.exec.PointTask;

/** The Slurm executor against a real cluster ({@code scripts/setup-slurm.sh}): the local executor's contract. */
class SlurmExecutorTest {
  @TempDir Path dir;
  private final ByteArrayOutputStream log = new ByteArrayOutputStream();

  private SlurmExecutor slurm() {
    SlurmSettings s = SlurmSettings.defaults().with("poll", "0.3").with("time", "5");
    return new SlurmExecutor(s, new PrintStream(log, true, StandardCharsets.UTF_8));
  }

  private String progress() {
    return log.toString(StandardCharsets.UTF_8);
  }

  /** Four result writers and a task that fails on its first start and succeeds on the second, under {@code root}. */
  private static List<PointTask> sweep(Path root) {
    List<PointTask> tasks = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      tasks.add(new PointTask("p" + i, List.of("sh", "-c", "echo '{\"v\":" + i
          + "}' > result.json.tmp && mv result.json.tmp result.json"), root.resolve("p" + i)));
    }
    tasks.add(new PointTask("flaky", List.of("sh", "-c",
        "if [ -f tried ]; then echo '{}' > result.json; else touch tried; echo boom >&2; exit 3; fi"),
        root.resolve("flaky")));
    return tasks;
  }

  @Test
  void arrayWithARetryEndsAsTheLocalExecutorAndARerunSubmitsOnlyTheMissingPoint() throws Exception {
    SlurmCluster.require();
    List<PointTask> viaSlurm = sweep(dir.resolve("slurm"));
    List<PointTask> viaLocal = sweep(dir.resolve("local"));

    List<PointOutcome> slurmOut = slurm().run(viaSlurm, 2);
    List<PointOutcome> localOut = new LocalExecutor(2, new PrintStream(new ByteArrayOutputStream()),
        Duration.ofSeconds(10)).run(viaLocal, 2);

    assertEquals(localOut, slurmOut);
    assertEquals(List.of(1, 1, 1, 1, 2), slurmOut.stream().map(PointOutcome::attempts).toList());
    for (int i = 0; i < viaSlurm.size(); i++) {
      assertEquals(Files.readString(viaLocal.get(i).resultFile()), Files.readString(viaSlurm.get(i).resultFile()));
    }
    assertTrue(Files.readString(dir.resolve("slurm/flaky/stderr.log")).contains("boom"));
    String progress = progress();
    assertTrue(progress.contains("flaky attempt 1 of 2 failed: exit code 3; stderr ends: boom"), progress);
    assertTrue(progress.matches("(?s).*slurm array \\d+: 5 task\\(s\\) submitted \\(attempt 1 of 2\\).*"
        + "slurm array \\d+: 1 task\\(s\\) submitted \\(attempt 2 of 2\\).*"), progress);
    assertTrue(progress.matches("(?s).*slurm array \\d+: 5 ended \\(\\d+s\\).*"), progress);

    Files.delete(viaSlurm.get(2).resultFile());
    log.reset();
    List<PointOutcome> again = slurm().run(viaSlurm, 1);
    assertEquals(List.of(0, 0, 1, 0, 0), again.stream().map(PointOutcome::attempts).toList());
    assertTrue(again.stream().allMatch(PointOutcome::done));
    assertTrue(progress().contains(": 1 task(s) submitted (attempt 1 of 1)"), progress());
    assertEquals("{\"v\":2}\n", Files.readString(viaSlurm.get(2).resultFile()));
  }

  @Test
  void aPermanentlyFailingTaskIsReportedWithItsCauseAndDoesNotStopTheOthers() throws Exception {
    SlurmCluster.require();
    List<PointTask> tasks = List.of(
        new PointTask("diverges", List.of("sh", "-c", "echo 'solver did not converge' >&2; exit 7"),
            dir.resolve("diverges")),
        new PointTask("silent", List.of("sh", "-c", "echo no-result"), dir.resolve("silent")),
        new PointTask("killed", List.of("sh", "-c", "kill -KILL $PPID"), dir.resolve("killed")),
        new PointTask("fine", List.of("sh", "-c", "echo '{}' > result.json"), dir.resolve("fine")));

    List<PointOutcome> out = slurm().run(tasks, 2);

    assertEquals(List.of(PointOutcome.Status.FAILED, PointOutcome.Status.FAILED, PointOutcome.Status.FAILED,
        PointOutcome.Status.DONE), out.stream().map(PointOutcome::status).toList());
    assertEquals(List.of(2, 2, 2, 1), out.stream().map(PointOutcome::attempts).toList());
    assertEquals("exit code 7; stderr ends: solver did not converge | solver did not converge",
        out.get(0).failure());
    assertEquals("exit code 0 but no result.json", out.get(1).failure());
    // the job script itself was killed: no exit code file, so Slurm's own account of the array task
    assertTrue(out.get(2).failure().startsWith("ended without an exit code, Slurm state FAILED"),
        out.get(2).failure());
  }

  @Test
  void aJavaMainOnTheToolkitsClasspathRunsUnderSlurm() throws Exception {
    SlurmCluster.require();
    String java = ProcessHandle.current().info().command().orElse("java");
    String classpath = codeSource(WriteResultMain.class) + File.pathSeparator + codeSource(PointTask.class);
    List<PointTask> tasks = List.of(
        new PointTask("j1", List.of(java, "-cp", classpath, WriteResultMain.class.getName(), "41"),
            dir.resolve("j1")),
        new PointTask("j2", List.of(java, "-cp", classpath, WriteResultMain.class.getName(), "42"),
            dir.resolve("j2")));

    List<PointOutcome> out = slurm().run(tasks, 1);

    assertTrue(out.stream().allMatch(PointOutcome::done), out.toString());
    String version = System.getProperty("java.specification.version");
    assertEquals("{\"v\":41,\"java\":\"" + version + "\"}\n", Files.readString(tasks.get(0).resultFile()));
    assertEquals("{\"v\":42,\"java\":\"" + version + "\"}\n", Files.readString(tasks.get(1).resultFile()));
  }

  @Test
  void anInterruptCancelsTheArray() throws Exception {
    SlurmCluster.require();
    List<PointTask> tasks = List.of(new PointTask("long", List.of("sleep", "120"), dir.resolve("long")));
    ExecutorService caller = Executors.newSingleThreadExecutor();
    try {
      Future<List<PointOutcome>> run = caller.submit(() -> slurm().run(tasks, 1));
      String arrayId = null;
      for (int i = 0; i < 100 && arrayId == null; i++) {
        Thread.sleep(100);
        var m = java.util.regex.Pattern.compile("slurm array (\\d+): 1 running").matcher(progress());
        arrayId = m.find() ? m.group(1) : null;
      }
      assertTrue(arrayId != null, "the array did not start: " + progress());
      caller.shutdownNow();
      assertTrue(caller.awaitTermination(30, TimeUnit.SECONDS));
      var failure = assertThrows(java.util.concurrent.ExecutionException.class, run::get);
      assertTrue(failure.getCause() instanceof InterruptedException, failure.toString());
      assertTrue(progress().contains("slurm array " + arrayId + " cancelled (interrupted)"), progress());
      SlurmCommands commands = new SlurmCommands(SlurmSettings.defaults());
      for (int i = 0; i < 50 && !commands.queuedStates(arrayId).isEmpty(); i++) {
        Thread.sleep(200);
      }
      assertEquals(java.util.Map.of(), commands.queuedStates(arrayId));
      assertTrue(commands.endStates(arrayId).get(0).startsWith("CANCELLED"), commands.endStates(arrayId).toString());
    } finally {
      caller.shutdownNow();
    }
  }

  @Test
  void withoutSlurmsCommandsTheErrorSaysHowToSetUpACluster() {
    SlurmSettings nowhere = SlurmSettings.defaults().with("bin", dir.resolve("no-slurm-here").toString());
    SlurmExecutor ex = new SlurmExecutor(nowhere, new PrintStream(log, true, StandardCharsets.UTF_8));
    List<PointTask> tasks = List.of(new PointTask("a", List.of("true"), dir.resolve("a")));

    IOException e = assertThrows(IOException.class, () -> ex.run(tasks, 1));

    assertTrue(e.getMessage().startsWith("cannot run " + dir.resolve("no-slurm-here/sbatch")), e.getMessage());
    assertTrue(e.getMessage().contains("scripts/setup-slurm.sh"), e.getMessage());
  }

  @Test
  void aControllerThatDoesNotAnswerIsAnErrorSayingSo() throws Exception {
    SlurmCluster.require();
    // this machine's configuration, but naming a port where no controller listens
    String conf = Files.readString(Path.of(System.getenv().getOrDefault("SLURM_CONF", "/etc/slurm/slurm.conf")))
        .replaceAll("(?m)^SlurmctldPort=.*$", "") + "SlurmctldPort=9\n";
    Path badConf = Files.writeString(dir.resolve("slurm.conf"), conf);
    SlurmExecutor ex = new SlurmExecutor(SlurmSettings.defaults().with("conf", badConf.toString()),
        new PrintStream(log, true, StandardCharsets.UTF_8));
    List<PointTask> tasks = List.of(new PointTask("a", List.of("true"), dir.resolve("a")));

    IOException e = assertThrows(IOException.class, () -> ex.run(tasks, 1));

    assertTrue(e.getMessage().startsWith("sbatch failed (exit code 1): sbatch: error: Batch job submission failed: "
        + "Unable to contact slurm controller"), e.getMessage());
    assertTrue(e.getMessage().contains("scripts/setup-slurm.sh"), e.getMessage());
  }

  private static String codeSource(Class<?> c) throws Exception {
    return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
  }
}
