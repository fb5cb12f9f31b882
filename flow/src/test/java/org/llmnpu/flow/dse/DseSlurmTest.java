package org.llmnpu.flow.dse;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.flow.exec.LocalExecutor;
import org.llmnpu.flow.slurm.SlurmCluster;
import org.llmnpu.flow.slurm.SlurmExecutor;
import org.llmnpu.flow.slurm.SlurmSettings;

/** A sweep through a real Slurm job array gives the same report as through the local executor. */
class DseSlurmTest {
  @TempDir Path dir;

  @Test
  void theSlurmExecutorsReportEqualsTheLocalOnesByteForByte() throws Exception {
    SlurmCluster.require();
    Path file = dir.resolve("sweep.yaml");
    Files.writeString(file, "name: slurm\nbase: {config: " + SweepFileTest.EXAMPLES.resolve("tiny-npu.yaml") + "}\n"
        + "model: stories260K\nworkload: {promptLen: 8}\nobjectives: [tpotS, ttftS]\n"
        + "parameters: {memBytesPerCycle: [2, 4]}\n");
    SweepFile s = SweepFile.read(file);
    PrintStream log = System.err;
    DseRun.Summary local = DseRun.run(s, dir.resolve("local"), new LocalExecutor(2, log, Duration.ofSeconds(5)), 1,
        DseRun.javaCommand(), log);
    SlurmSettings settings = SlurmSettings.defaults().with("job-dir", dir.resolve("jobs").toString())
        .with("poll", "1");
    DseRun.Summary slurm = DseRun.run(s, dir.resolve("slurm"), new SlurmExecutor(settings, log), 2,
        DseRun.javaCommand(), log);
    assertEquals(2, local.done().size());
    assertEquals(local.done(), slurm.done());
    for (String f : List.of("pareto.json", "points.csv", "index.html")) {
      assertEquals(Files.readString(dir.resolve("local").resolve(f)), Files.readString(dir.resolve("slurm").resolve(f)),
          f);
    }
  }
}
