package org.llmnpu.flow.slurm;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How {@link SlurmExecutor} submits its job arrays. Every setting has a default, an environment variable and a key
 * for {@link #with(String, String)} (what a CLI option such as {@code --slurm partition=gpu} passes on):
 *
 * <table>
 * <caption>Settings</caption>
 * <tr><th>key</th><th>environment</th><th>default</th><th>meaning</th></tr>
 * <tr><td>{@code partition}</td><td>{@code LLMNPU_SLURM_PARTITION}</td><td>(the cluster's default)</td>
 *     <td>{@code sbatch --partition}</td></tr>
 * <tr><td>{@code time}</td><td>{@code LLMNPU_SLURM_TIME}</td><td>{@code 04:00:00}</td>
 *     <td>{@code sbatch --time} per array task ({@code [D-]HH:MM:SS}, {@code MM} or {@code MM:SS})</td></tr>
 * <tr><td>{@code cpus}</td><td>{@code LLMNPU_SLURM_CPUS}</td><td>{@code 1}</td>
 *     <td>{@code sbatch --cpus-per-task}</td></tr>
 * <tr><td>{@code mem}</td><td>{@code LLMNPU_SLURM_MEM}</td><td>(the cluster's default)</td>
 *     <td>{@code sbatch --mem}, e.g. {@code 4G}</td></tr>
 * <tr><td>{@code array-limit}</td><td>{@code LLMNPU_SLURM_ARRAY_LIMIT}</td><td>{@code 0} (no limit)</td>
 *     <td>tasks of one array running at once ({@code --array=0-N%limit})</td></tr>
 * <tr><td>{@code poll}</td><td>{@code LLMNPU_SLURM_POLL_SECONDS}</td><td>{@code 2}</td>
 *     <td>seconds between two {@code squeue} calls</td></tr>
 * <tr><td>{@code job-dir}</td><td>{@code LLMNPU_SLURM_JOB_DIR}</td><td>{@code slurm-jobs} beside the first task's
 *     output directory</td><td>where the command lists, job scripts and Slurm's own logs go; must be visible to
 *     the nodes</td></tr>
 * <tr><td>{@code bin}</td><td>{@code LLMNPU_SLURM_BIN}</td><td>(found on {@code PATH})</td>
 *     <td>directory holding {@code sbatch}, {@code squeue}, {@code scontrol}, {@code scancel}</td></tr>
 * <tr><td>{@code conf}</td><td>{@code LLMNPU_SLURM_CONF}</td><td>(Slurm's own choice)</td>
 *     <td>the {@code slurm.conf} naming the cluster, passed to the commands as {@code SLURM_CONF}</td></tr>
 * </table>
 *
 * @param partition empty for the cluster's default partition
 * @param time the time limit of one array task in a form {@code sbatch --time} takes
 * @param cpusPerTask at least 1
 * @param memory empty for the cluster's default
 * @param arrayLimit 0 for no limit
 * @param poll time between two polls of the queue
 * @param jobDir null for {@code slurm-jobs} beside the first task's output directory
 * @param bin null to find the Slurm commands on {@code PATH}
 * @param conf null to let the Slurm commands find their configuration themselves
 */
public record SlurmSettings(String partition, String time, int cpusPerTask, String memory, int arrayLimit,
    Duration poll, Path jobDir, Path bin, Path conf) {

  /** The keys {@link #with} takes, in the order of the table above. */
  public static final List<String> KEYS = List.of("partition", "time", "cpus", "mem", "array-limit", "poll",
      "job-dir", "bin", "conf");

  public SlurmSettings {
    Objects.requireNonNull(partition, "partition");
    Objects.requireNonNull(time, "time");
    Objects.requireNonNull(memory, "memory");
    Objects.requireNonNull(poll, "poll");
    if (!partition.matches("[A-Za-z0-9_.,-]*")) {
      throw new IllegalArgumentException("slurm partition must be a partition name ([A-Za-z0-9_.,-]), got '"
          + partition + "'");
    }
    if (!time.matches("(\\d+-)?\\d+(:\\d{1,2}){0,2}|UNLIMITED|INFINITE")) {
      throw new IllegalArgumentException("slurm time must be [D-]HH:MM:SS, MM, MM:SS or UNLIMITED, got '" + time
          + "'");
    }
    if (cpusPerTask < 1) {
      throw new IllegalArgumentException("slurm cpus must be at least 1, got " + cpusPerTask);
    }
    if (!memory.matches("(\\d+[KMGT]?)?")) {
      throw new IllegalArgumentException("slurm mem must be a size such as 4096 or 4G (K, M, G, T), got '"
          + memory + "'");
    }
    if (arrayLimit < 0) {
      throw new IllegalArgumentException("slurm array-limit must be 0 (no limit) or more, got " + arrayLimit);
    }
    if (poll.isNegative() || poll.isZero()) {
      throw new IllegalArgumentException("slurm poll must be a positive time, got " + poll);
    }
  }

  /** The defaults: the cluster's default partition, 4 hours, 1 CPU, no array limit, a poll every 2 s. */
  public static SlurmSettings defaults() {
    return new SlurmSettings("", "04:00:00", 1, "", 0, Duration.ofSeconds(2), null, null, null);
  }

  /** The defaults overridden by the {@code LLMNPU_SLURM_*} variables of {@code env} that are set and not empty. */
  public static SlurmSettings fromEnvironment(Map<String, String> env) {
    SlurmSettings s = defaults();
    for (String key : KEYS) {
      String value = env.get(environmentVariable(key));
      if (value != null && !value.isBlank()) {
        s = s.with(key, value.trim());
      }
    }
    return s;
  }

  /** The environment variable of a key: {@code LLMNPU_SLURM_} and the key in capitals ({@code poll}: seconds). */
  public static String environmentVariable(String key) {
    String name = "LLMNPU_SLURM_" + key.toUpperCase(java.util.Locale.ROOT).replace('-', '_');
    return key.equals("poll") ? name + "_SECONDS" : name;
  }

  /**
   * These settings with one changed.
   *
   * @param key one of {@link #KEYS}
   * @throws IllegalArgumentException naming the key and its allowed values when either is wrong
   */
  public SlurmSettings with(String key, String value) {
    String partition = this.partition;
    String time = this.time;
    int cpusPerTask = this.cpusPerTask;
    String memory = this.memory;
    int arrayLimit = this.arrayLimit;
    Duration poll = this.poll;
    Path jobDir = this.jobDir;
    Path bin = this.bin;
    Path conf = this.conf;
    switch (key) {
      case "partition" -> partition = value;
      case "time" -> time = value;
      case "cpus" -> cpusPerTask = integer(key, value);
      case "mem" -> memory = value;
      case "array-limit" -> arrayLimit = integer(key, value);
      case "poll" -> poll = seconds(value);
      case "job-dir" -> jobDir = Path.of(value);
      case "bin" -> bin = Path.of(value);
      case "conf" -> conf = Path.of(value);
      default -> throw new IllegalArgumentException("unknown slurm setting '" + key + "' (allowed: "
          + String.join(", ", KEYS) + ")");
    }
    return new SlurmSettings(partition, time, cpusPerTask, memory, arrayLimit, poll, jobDir, bin, conf);
  }

  /** The {@code sbatch} options these settings add (partition, time, CPUs, memory). */
  List<String> sbatchOptions() {
    List<String> options = new java.util.ArrayList<>();
    if (!partition.isEmpty()) {
      options.add("--partition=" + partition);
    }
    options.add("--time=" + time);
    options.add("--cpus-per-task=" + cpusPerTask);
    if (!memory.isEmpty()) {
      options.add("--mem=" + memory);
    }
    return options;
  }

  /** The path of one Slurm command: in {@link #bin()} when set, else its bare name (found on {@code PATH}). */
  String command(String name) {
    return bin == null ? name : bin.resolve(name).toString();
  }

  private static int integer(String key, String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("slurm " + key + " must be a whole number, got '" + value + "'");
    }
  }

  private static Duration seconds(String value) {
    try {
      return Duration.ofMillis(Math.round(Double.parseDouble(value) * 1000));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("slurm poll must be a number of seconds, got '" + value + "'");
    }
  }
}
