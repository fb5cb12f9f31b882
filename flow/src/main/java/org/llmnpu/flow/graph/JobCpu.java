package org.llmnpu.flow.graph;

import java.util.Locale;

/**
 * The CPU time (user + system) one job's body used: that of the tool processes it started (Yosys and ABC, OpenSTA,
 * Verilator, make and the C++ compiler, the Verilator models; {@code org.llmnpu.hdl.tools.ToolCpu}, exact: each
 * process's own and its waited-for descendants') and that of the thread that ran the body (the JVM's work for it:
 * golden models, parsing, the JIT's share is not in it). Unlike the wall time it does not depend on the load.
 *
 * @param toolSeconds   user + system seconds of the tool processes the job started
 * @param toolProcesses how many tool processes it started
 * @param threadSeconds user + system seconds of the thread that ran the job's body; NaN if the JVM cannot tell
 */
public record JobCpu(double toolSeconds, long toolProcesses, double threadSeconds) {
  /** No CPU: a cached or skipped job. */
  public static final JobCpu NONE = new JobCpu(0, 0, 0);

  /** Tools and thread together, seconds. */
  public double seconds() {
    return toolSeconds + (Double.isNaN(threadSeconds) ? 0 : threadSeconds);
  }

  /** {@code CPU 312.4 s (tools 305.1 s in 14 processes, JVM 7.3 s)}. */
  @Override
  public String toString() {
    return String.format(Locale.ROOT, "CPU %.1f s (tools %.1f s in %d %s, JVM %.1f s)", seconds(), toolSeconds,
        toolProcesses, toolProcesses == 1 ? "process" : "processes", threadSeconds);
  }
}
