package org.llmnpu.hdl.tools;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CPU time (user + system) of the tool processes a piece of work starts — Yosys with its ABC, OpenSTA,
 * Verilator with make and the C++ compiler, the Verilator models — charged to a {@link Ledger} that the work's thread
 * (and the threads it starts) carries. A job runner opens a ledger per job; the places that start tools
 * ({@link ExternalTool}, the PPA flow's tool runner, the Verilator harness's models) {@link #meter} their command.
 *
 * <p>How it is measured, exactly: with a ledger open, a command runs under {@code /bin/sh}, which waits for it and
 * then writes its {@code times} (the user and system time of the children it waited for, which include every
 * descendant they waited for in turn: ABC under Yosys, the compilers under make) to a file that {@link Metered#end()}
 * reads. Without a ledger (the usual case outside a job graph) the command runs as it is. The shell costs about a
 * millisecond per tool; the command's exit status is the shell's.
 */
public final class ToolCpu {
  private static final InheritableThreadLocal<Ledger> CURRENT = new InheritableThreadLocal<>();
  private static final Pattern TIME = Pattern.compile("(\\d+)m([0-9.]+)s");
  private static final String SHELL = "/bin/sh";

  private ToolCpu() {
  }

  /** CPU seconds of the tool processes charged to it, summed as they end (safe from any thread). */
  public static final class Ledger {
    private final AtomicLong micros = new AtomicLong();
    private final AtomicLong processes = new AtomicLong();

    /** User + system seconds of the tool processes that ended so far. */
    public double seconds() {
      return micros.get() / 1e6;
    }

    /** Tool processes metered so far. */
    public long processes() {
      return processes.get();
    }

    void add(double seconds) {
      micros.addAndGet(Math.round(seconds * 1e6));
      processes.incrementAndGet();
    }
  }

  /** Charges the tools the current thread (and the threads it starts from now on) runs to {@code ledger}. */
  public static void open(Ledger ledger) {
    CURRENT.set(ledger);
  }

  /** Stops charging the current thread's tools. */
  public static void close() {
    CURRENT.remove();
  }

  /**
   * {@code command} to start, metered when the current thread carries a ledger and {@code /bin/sh} exists; call
   * {@link Metered#end()} once the process has ended (also after a failure; it is harmless then).
   */
  public static Metered meter(List<String> command) {
    Ledger ledger = CURRENT.get();
    if (ledger == null || !Files.isExecutable(Path.of(SHELL)) || !runnable(command.get(0))) {
      return new Metered(command, null, null);
    }
    try {
      Path file = Files.createTempFile("llmnpu-cpu-", ".txt");
      List<String> wrapped = new ArrayList<>(List.of(SHELL, "-c", "\"$@\"; s=$?; times > \"$0\"; exit $s",
          file.toString()));
      wrapped.addAll(command);
      return new Metered(wrapped, file, ledger);
    } catch (IOException e) {
      return new Metered(command, null, null);
    }
  }

  /** An executable the shell will find: a path to one, or a name on the PATH (else the caller's own error stands). */
  private static boolean runnable(String executable) {
    return executable.contains("/") ? Files.isExecutable(Path.of(executable))
        : ExternalTool.find(executable).isPresent();
  }

  /**
   * A command to start, and where its CPU goes.
   *
   * @param command what to give {@link ProcessBuilder}
   */
  public record Metered(List<String> command, Path file, Ledger ledger) {
    /** Charges the ended process's CPU to the ledger (nothing when unmetered or when it was killed) and cleans up. */
    public void end() {
      if (file == null) {
        return;
      }
      try {
        double s = childSeconds(Files.readString(file, StandardCharsets.UTF_8));
        if (!Double.isNaN(s)) {
          ledger.add(s);
        }
      } catch (IOException e) {
        // the shell was killed before it wrote its times: nothing to charge
      } finally {
        try {
          Files.deleteIfExists(file);
        } catch (IOException e) {
          // a temporary file left behind
        }
      }
    }
  }

  /**
   * The children's user + system seconds from the output of the shell's {@code times}: two lines, the shell's own
   * user and system time, then its children's ({@code 0m1.230000s 0m0.040000s}); NaN when not in that form.
   */
  static double childSeconds(String times) {
    String[] lines = times.strip().split("\n");
    if (lines.length < 2) {
      return Double.NaN;
    }
    Matcher m = TIME.matcher(lines[1]);
    double s = 0;
    int found = 0;
    while (m.find()) {
      s += Long.parseLong(m.group(1)) * 60 + Double.parseDouble(m.group(2));
      found++;
    }
    return found == 2 ? s : Double.NaN;
  }
}
