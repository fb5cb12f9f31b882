package org.llmnpu.flow.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Defaults, environment overrides and the errors of the Slurm settings. */
class SlurmSettingsTest {
  @Test
  void defaultsLeavePartitionAndMemoryToTheCluster() {
    SlurmSettings s = SlurmSettings.defaults();
    assertEquals(List.of("--time=04:00:00", "--cpus-per-task=1"), s.sbatchOptions());
    assertEquals(Duration.ofSeconds(2), s.poll());
    assertEquals("sbatch", s.command("sbatch"));
  }

  @Test
  void environmentOverridesEverySetting() {
    SlurmSettings s = SlurmSettings.fromEnvironment(Map.of(
        "LLMNPU_SLURM_PARTITION", "cpu-long", "LLMNPU_SLURM_TIME", "1-02:00:00", "LLMNPU_SLURM_CPUS", "4",
        "LLMNPU_SLURM_MEM", "8G", "LLMNPU_SLURM_ARRAY_LIMIT", "20", "LLMNPU_SLURM_POLL_SECONDS", "0.5",
        "LLMNPU_SLURM_JOB_DIR", "/shared/jobs", "LLMNPU_SLURM_BIN", "/opt/slurm/bin", "LLMNPU_SLURM_CONF", "/etc/slurm-b/slurm.conf",
        "LLMNPU_SLURM_TYPO", "x"));
    assertEquals(List.of("--partition=cpu-long", "--time=1-02:00:00", "--cpus-per-task=4", "--mem=8G"),
        s.sbatchOptions());
    assertEquals(20, s.arrayLimit());
    assertEquals(Duration.ofMillis(500), s.poll());
    assertEquals(Path.of("/shared/jobs"), s.jobDir());
    assertEquals("/opt/slurm/bin/squeue", s.command("squeue"));
    assertEquals(s, SlurmSettings.fromEnvironment(Map.of()).with("partition", "cpu-long")
        .with("time", "1-02:00:00").with("cpus", "4").with("mem", "8G").with("array-limit", "20")
        .with("poll", "0.5").with("job-dir", "/shared/jobs").with("bin", "/opt/slurm/bin")
        .with("conf", "/etc/slurm-b/slurm.conf"));
  }

  @Test
  void badValuesNameTheSettingAndWhatItTakes() {
    assertEquals("slurm cpus must be at least 1, got 0", message(() -> SlurmSettings.defaults().with("cpus", "0")));
    assertEquals("slurm cpus must be a whole number, got 'two'",
        message(() -> SlurmSettings.defaults().with("cpus", "two")));
    assertEquals("slurm time must be [D-]HH:MM:SS, MM, MM:SS or UNLIMITED, got '2h'",
        message(() -> SlurmSettings.defaults().with("time", "2h")));
    assertEquals("slurm mem must be a size such as 4096 or 4G (K, M, G, T), got '4GB'",
        message(() -> SlurmSettings.defaults().with("mem", "4GB")));
    assertEquals("slurm partition must be a partition name ([A-Za-z0-9_.,-]), got 'a b'",
        message(() -> SlurmSettings.defaults().with("partition", "a b")));
    assertEquals("unknown slurm setting 'queue' (allowed: partition, time, cpus, mem, array-limit, poll, job-dir, "
        + "bin, conf)", message(() -> SlurmSettings.defaults().with("queue", "x")));
    assertEquals("slurm poll must be a positive time, got PT0S",
        message(() -> SlurmSettings.fromEnvironment(Map.of("LLMNPU_SLURM_POLL_SECONDS", "0"))));
  }

  private static String message(org.junit.jupiter.api.function.Executable e) {
    return assertThrows(IllegalArgumentException.class, e).getMessage();
  }
}
