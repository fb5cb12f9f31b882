package org.llmnpu.sw.lower;

/**
 * The dependences {@link StreamSchedule} asks about while it schedules a window: which held command orders
 * everything (a {@link CommandFootprint.State#ALL} access), and for a streamed GEMM the earlier commands of the
 * window it may not pass. A streamed GEMM may start before the held commands ahead of it when none of them is still
 * held among its blockers: the same answer as testing it against the union of their accesses (a non-empty range of a
 * state that one of the two writes and the other touches), found once per GEMM and window instead of rebuilding the
 * union for every command scheduled (measured: the union's interval maps took about 80 % of stories260K's
 * interleaved 40-token prefill). A command's blockers found done stay done within the window, so each is checked once
 * (the repeated checks took a third of LLaMA-2-7B's skewed two-layer walk).
 */
final class StreamBlockers {
  private final CommandFootprint[] footprints;
  private final boolean[] ordersAll;
  private final int[][] blockers;
  /** Per command, how many of its blockers (in order) are known done (a window's commands are never undone). */
  private final int[] doneBlockers;
  private final int scan;

  /**
   * @param footprints the window's footprints, in program order
   * @param scan       how far back a command's blockers are looked for (a scheduling scan's length)
   */
  StreamBlockers(CommandFootprint[] footprints, int scan) {
    this.footprints = footprints;
    this.scan = scan;
    ordersAll = new boolean[footprints.length];
    blockers = new int[footprints.length][];
    doneBlockers = new int[footprints.length];
    for (int i = 0; i < footprints.length; i++) {
      for (CommandFootprint.Access a : footprints[i].accesses()) {
        ordersAll[i] |= a.state() == CommandFootprint.State.ALL;
      }
    }
  }

  /** Whether command {@code i} orders everything: nothing passes it, it passes nothing. */
  boolean ordersAll(int i) {
    return ordersAll[i];
  }

  /**
   * Whether command {@code j} depends on none of the held commands before it within the scan ({@code done}: the
   * commands already passed on). The caller checks {@link #ordersAll} on the commands it passes over.
   */
  boolean ready(int j, boolean[] done) {
    if (blockers[j] == null) {
      blockers[j] = blockersOf(j);
    }
    int[] b = blockers[j];
    int k = doneBlockers[j];
    while (k < b.length && done[b[k]]) {
      k++;
    }
    doneBlockers[j] = k;
    return k == b.length;
  }

  private int[] blockersOf(int j) {
    int[] out = new int[Math.min(j, scan)];
    int n = 0;
    for (int i = Math.max(0, j - scan + 1); i < j; i++) {
      if (conflicts(footprints[i], footprints[j])) {
        out[n++] = i;
      }
    }
    return java.util.Arrays.copyOf(out, n);
  }

  /** A non-empty range of the same state in both, written by at least one ({@code ALL} is {@link #ordersAll}'s). */
  private static boolean conflicts(CommandFootprint x, CommandFootprint y) {
    for (CommandFootprint.Access a : x.accesses()) {
      if (a.state() == CommandFootprint.State.ALL || a.start() >= a.end()) {
        continue;
      }
      for (CommandFootprint.Access b : y.accesses()) {
        if (b.state() == a.state() && (a.write() || b.write()) && b.start() < b.end() && a.start() < b.end()
            && b.start() < a.end()) {
          return true;
        }
      }
    }
    return false;
  }
}
