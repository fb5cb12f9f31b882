package org.llmnpu.flow.slurm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The Slurm commands the executor calls — {@code sbatch}, {@code squeue}, {@code scontrol}, {@code scancel} — each
 * a short process whose output is parsed here. No accounting database is needed: live states come from
 * {@code squeue}, the states of ended array tasks from {@code scontrol show job} while the controller remembers them
 * ({@code MinJobAge}, 300 s by default), and the outcome itself from the files the job script writes.
 */
final class SlurmCommands {
  /** What to run to get a cluster on this machine; named in every error that means "no usable Slurm here". */
  static final String SETUP_HINT = "to start a single-node cluster on this machine run (as root) "
      + "scripts/setup-slurm.sh; on a real cluster submit from a login node or set LLMNPU_SLURM_BIN";

  private static final long TIMEOUT_SECONDS = 60;

  private final SlurmSettings settings;

  SlurmCommands(SlurmSettings settings) {
    this.settings = settings;
  }

  /** The output of one finished command. */
  record Result(int exitCode, String stdout, String stderr) {
  }

  /**
   * Submits one array of {@code size} tasks running {@code files.script()}; returns the array's job id.
   *
   * @throws IOException naming sbatch's complaint and {@link #SETUP_HINT} when the submission fails
   */
  String submitArray(JobArrayFiles files, int size, String jobName) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(settings.command("sbatch"), "--parsable", "--job-name=" + jobName,
        "--array=0-" + (size - 1) + (settings.arrayLimit() > 0 ? "%" + settings.arrayLimit() : ""),
        "--output=" + files.slurmLogPattern(), "--chdir=" + files.dir()));
    cmd.addAll(settings.sbatchOptions());
    cmd.add(files.script().toString());
    Result r = run(cmd);
    String id = r.stdout().strip();
    int semicolon = id.indexOf(';'); // "id;cluster" on a federation
    id = semicolon < 0 ? id : id.substring(0, semicolon);
    if (r.exitCode() != 0 || !id.matches("\\d+")) {
      throw new IOException("sbatch failed (exit code " + r.exitCode() + "): " + oneLine(r.stderr() + " "
          + r.stdout()) + "; is the Slurm controller running? " + SETUP_HINT);
    }
    return id;
  }

  /**
   * The states of the array's tasks still in the queue (pending, running, completing...), by array index; empty
   * once every task has ended.
   *
   * @throws IOException when {@code squeue} cannot answer (controller unreachable)
   */
  Map<Integer, String> queuedStates(String arrayJobId) throws IOException, InterruptedException {
    Result r = run(List.of(settings.command("squeue"), "--noheader", "--array", "--jobs=" + arrayJobId,
        "--format=%K|%T"));
    Map<Integer, String> states = new TreeMap<>();
    if (r.exitCode() != 0) {
      if (r.stderr().contains("Invalid job id")) {
        return states; // ended so long ago that the controller forgot it
      }
      throw new IOException("squeue failed (exit code " + r.exitCode() + "): " + oneLine(r.stderr()));
    }
    for (String line : r.stdout().split("\n")) {
      String[] f = line.strip().split("\\|");
      if (f.length == 2 && f[0].matches("\\d+")) {
        states.put(Integer.parseInt(f[0]), f[1]);
      }
    }
    return states;
  }

  /**
   * How each ended array task ended, by index, as Slurm remembers it: {@code "FAILED (NonZeroExitCode, exit
   * 3:0)"}. Best effort: empty when {@code scontrol} no longer knows the job.
   */
  Map<Integer, String> endStates(String arrayJobId) throws InterruptedException {
    Map<Integer, String> states = new TreeMap<>();
    Result r;
    try {
      r = run(List.of(settings.command("scontrol"), "--oneliner", "show", "job", arrayJobId));
    } catch (IOException e) {
      return states;
    }
    if (r.exitCode() != 0) {
      return states;
    }
    for (String line : r.stdout().split("\n")) {
      Map<String, String> f = fields(line);
      String index = f.get("ArrayTaskId");
      if (index != null && index.matches("\\d+")) {
        states.put(Integer.parseInt(index), f.get("JobState") + " (" + f.get("Reason") + ", exit "
            + f.get("ExitCode") + ")");
      }
    }
    return states;
  }

  /** Cancels every task of the array that has not ended; best effort. */
  void cancel(String arrayJobId) {
    try {
      run(List.of(settings.command("scancel"), arrayJobId));
    } catch (IOException | InterruptedException e) {
      // cancelling is the last thing done on the way out; the caller reports the interrupt itself
    }
  }

  /** The {@code Key=Value} fields of one {@code scontrol --oneliner} line. */
  static Map<String, String> fields(String line) {
    Map<String, String> f = new TreeMap<>();
    for (String word : line.strip().split("\\s+")) {
      int eq = word.indexOf('=');
      if (eq > 0) {
        f.putIfAbsent(word.substring(0, eq), word.substring(eq + 1));
      }
    }
    return f;
  }

  private Result run(List<String> cmd) throws IOException, InterruptedException {
    Process p;
    try {
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new java.io.File(
          "/dev/null")));
      if (settings.conf() != null) {
        pb.environment().put("SLURM_CONF", settings.conf().toAbsolutePath().toString());
      }
      p = pb.start();
    } catch (IOException e) {
      throw new IOException("cannot run " + cmd.get(0) + " (" + e.getMessage() + "): Slurm's commands are not "
          + "installed here; " + SETUP_HINT, e);
    }
    CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
    CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
    try {
      if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(cmd.get(0) + " did not answer within " + TIMEOUT_SECONDS + " s; " + SETUP_HINT);
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      throw e;
    }
    return new Result(p.exitValue(), out.join(), err.join());
  }

  private static String read(java.io.InputStream in) {
    try (in) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  static String oneLine(String s) {
    return s.strip().replaceAll("\\s*\n\\s*", " | ");
  }
}
