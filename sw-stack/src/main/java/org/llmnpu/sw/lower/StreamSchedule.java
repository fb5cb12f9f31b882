package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The order {@link BlockInterleaver} gives a window of commands (between layer boundaries, fences and the halt), on
 * commands known only by what the order needs: their {@link CommandFootprint}, whether they may go beside a W stream
 * (a {@code dspin}, {@code dspout} or resident {@code dsprun}), their estimated controller cycles there, a streamed
 * GEMM's W beats, a run's {@link CommandFootprint.RegisterUse} and whether they are a load that may start before a
 * stream. The lowering's interleaver fills it from the commands it is given (footprints from their addresses); the
 * cost model's extrapolated walk ({@link WalkSchedule}, the {@link CostOrder} of {@link CommandCosts}) from the
 * commands it costs (footprints from the walk's stand-in ranges), so both order their commands by the same rules.
 *
 * <p>The rules (see {@link BlockInterleaver}): program order, except that when the next command may go beside a stream
 * and a later streamed GEMM depends on no command still held, that GEMM goes first; before a streamed GEMM (with
 * {@code prefetch}) the held loads that depend on nothing skipped; after it the held copies and resident runs that
 * depend on nothing skipped and touch none of its results, up to its W beats of estimated work; candidates among the
 * next {@link #SCAN} commands; with {@code prefetch}, after a streamed GEMM nothing went beside, the first held store
 * that depends on nothing skipped and reads none of its results ({@link #storeAtStreamEnd}).
 */
final class StreamSchedule {
  /** Commands searched after a streamed GEMM for work to move beside it. */
  static final int SCAN = 4096;

  /**
   * A held command: {@code replay} passes it on; {@code streamBeats} a streamed GEMM's W beats (−1: not one);
   * {@code registers} a run's register use (null: not a run); {@code prefetch} a load that may start before a stream;
   * {@code late} a {@code store}, which may follow a streamed GEMM that nothing else went beside
   * ({@link #storeAtStreamEnd}).
   */
  record Item(CommandFootprint footprint, Runnable replay, boolean beside, long cost, long streamBeats,
              CommandFootprint.RegisterUse registers, boolean prefetch, boolean late) {
    Item(CommandFootprint footprint, Runnable replay, boolean beside, long cost, long streamBeats,
         CommandFootprint.RegisterUse registers, boolean prefetch) {
      this(footprint, replay, beside, cost, streamBeats, registers, prefetch, false);
    }
  }

  private final List<Item> window = new ArrayList<>();
  private final boolean prefetch;
  /** The held commands' footprints, registers resolved ({@link #registersResolved}), while a window is scheduled. */
  private CommandFootprint[] footprints;
  /** The window's dependences of streamed GEMMs ({@link #readyStream}), while a window is scheduled. */
  private StreamBlockers blockers;
  /**
   * The window's streamed GEMMs and commands that order everything, in program order: the only commands
   * {@link #readyStream} stops at (it passes over the others), while a window is scheduled.
   */
  private int[] candidates;
  private long moved;
  private long hoisted;

  /** @param prefetch start held loads before a streamed GEMM ({@link BlockInterleaver}: two blocks in flight) */
  StreamSchedule(boolean prefetch) {
    this.prefetch = prefetch;
  }

  /** Holds {@code item} until the next {@link #flush}. */
  void add(Item item) {
    window.add(item);
  }

  /** Commands held now. */
  int held() {
    return window.size();
  }

  /** Streamed GEMMs started before earlier copies or runs so far. */
  long hoisted() {
    return hoisted;
  }

  /** Commands moved beside a streamed GEMM (or loads started before one) so far. */
  long moved() {
    return moved;
  }

  /**
   * Schedules and passes on every command held (the stream's end, a barrier or a layer boundary): in program order,
   * except that when the next command is a copy or a resident run, the first streamed GEMM after it that depends on
   * no command still held goes first (its stream then runs beside that work), and after each streamed GEMM the
   * copies and resident runs that may go beside it follow it ({@link #fillBeside}).
   */
  void flush() {
    if (window.isEmpty()) {
      return;
    }
    int n = window.size();
    footprints = registersResolved();
    blockers = new StreamBlockers(footprints, SCAN);
    candidates = java.util.stream.IntStream.range(0, n)
        .filter(i -> window.get(i).streamBeats >= 0 || blockers.ordersAll(i)).toArray();
    boolean[] done = new boolean[n];
    int cursor = 0;
    while (true) {
      while (cursor < n && done[cursor]) {
        cursor++;
      }
      if (cursor == n) {
        break;
      }
      int pick = window.get(cursor).beside() ? readyStream(cursor, done) : -1;
      if (pick < 0) {
        pick = cursor;
      } else {
        hoisted++;
      }
      Item e = window.get(pick);
      if (e.streamBeats >= 0 && prefetch) {
        loadPrograms(cursor, pick, done);
      }
      e.replay.run();
      done[pick] = true;
      if (e.streamBeats >= 0) {
        fillBeside(e, cursor, done);
      }
    }
    window.clear();
  }

  /**
   * Each held command's footprint with its DSP register accesses: when a run of the window reads a register (or the
   * element count) it did not write first, every run reads and writes all of them (runs keep their order); else a
   * register's values leave no run, so runs write only the registers they are the window's last writer of and read
   * the others they write (a run passes another unless it is the last writer of a register both write: the window's
   * registers end as in program order, for the runs after it).
   */
  private CommandFootprint[] registersResolved() {
    int n = window.size();
    boolean exposed = false;
    int[] lastWriter = new int[CommandFootprint.LENGTH + 1];
    java.util.Arrays.fill(lastWriter, -1);
    for (int i = 0; i < n; i++) {
      CommandFootprint.RegisterUse r = window.get(i).registers;
      if (r != null) {
        exposed |= !r.exposed().isEmpty();
        for (int reg = r.written().nextSetBit(0); reg >= 0; reg = r.written().nextSetBit(reg + 1)) {
          lastWriter[reg] = i;
        }
      }
    }
    CommandFootprint[] f = new CommandFootprint[n];
    for (int i = 0; i < n; i++) {
      Item e = window.get(i);
      if (e.registers == null) {
        f[i] = e.footprint;
        continue;
      }
      List<CommandFootprint.Access> a = new ArrayList<>(e.footprint.accesses());
      if (exposed) {
        a.add(new CommandFootprint.Access(CommandFootprint.State.DSP_REGISTERS, 0, CommandFootprint.LENGTH + 1, true));
      } else {
        java.util.BitSet w = e.registers.written();
        for (int reg = w.nextSetBit(0); reg >= 0; reg = w.nextSetBit(reg + 1)) {
          a.add(new CommandFootprint.Access(CommandFootprint.State.DSP_REGISTERS, reg, reg + 1, lastWriter[reg] == i));
        }
      }
      f[i] = new CommandFootprint(a);
    }
    return f;
  }

  /**
   * Before a streamed GEMM at {@code gemm}: the loads ({@code load}, {@code load4}, {@code loadmx}, {@code dspld}) held
   * from {@code from} that depend on no command before them still held (they wait for a W stream anyway), so that the
   * copies and runs that need their bytes or programs may go beside the stream.
   */
  private void loadPrograms(int from, int gemm, boolean[] done) {
    Ranges skipped = new Ranges();
    int end = Math.min(window.size(), from + SCAN);
    for (int j = from; j < end && !skipped.all; j++) {
      if (done[j] || j == gemm) {
        continue;
      }
      Item c = window.get(j);
      if (c.prefetch() && !skipped.conflicts(footprints[j]) && !footprints[j].conflicts(footprints[gemm])) {
        c.replay.run();
        done[j] = true;
        moved++;
      } else {
        skipped.add(footprints[j]);
      }
    }
  }

  /** The first streamed GEMM from {@code from} that depends on none of the commands before it still held, or −1. */
  private int readyStream(int from, boolean[] done) {
    int end = Math.min(window.size(), from + SCAN);
    int k = java.util.Arrays.binarySearch(candidates, from);
    for (k = k < 0 ? -k - 1 : k; k < candidates.length && candidates[k] < end; k++) {
      int j = candidates[k];
      if (done[j]) {
        continue;
      }
      if (blockers.ordersAll(j)) {
        return -1;
      }
      if (window.get(j).streamBeats >= 0 && blockers.ready(j, done)) {
        return j;
      }
    }
    return -1;
  }

  /** Moves the held copies and resident runs from {@code from} that may go beside {@code gemm}'s W stream. */
  private void fillBeside(Item gemm, int from, boolean[] done) {
    long budget = gemm.streamBeats;
    Ranges skipped = new Ranges();
    CommandFootprint results = new CommandFootprint(gemm.footprint.accesses().stream()
        .filter(a -> a.write() && a.state() == CommandFootprint.State.SPAD).toList());
    int end = Math.min(window.size(), from + SCAN);
    for (int j = from; j < end && budget > 0 && !skipped.all; j++) {
      if (done[j]) {
        continue;
      }
      Item c = window.get(j);
      if (c.beside() && !skipped.conflicts(footprints[j]) && !footprints[j].conflicts(results)) {
        c.replay.run();
        done[j] = true;
        budget -= c.cost;
        moved++;
      } else {
        skipped.add(footprints[j]);
      }
    }
    if (prefetch && budget == gemm.streamBeats) {
      storeAtStreamEnd(results, from, done);
    }
  }

  /**
   * With nothing else beside a streamed GEMM (two blocks in flight): the first held {@code store} from {@code from}
   * ({@link Item#late}) that depends on no command skipped and reads none of the GEMM's results follows it. It waits
   * for the W stream's end, which the controller would have waited for anyway, and then runs beside the GEMM's engine
   * tail and drain (a store goes beside a drain that reads no scratchpad; npu-isa README, Overlap).
   */
  private void storeAtStreamEnd(CommandFootprint results, int from, boolean[] done) {
    Ranges skipped = new Ranges();
    int end = Math.min(window.size(), from + SCAN);
    for (int j = from; j < end && !skipped.all; j++) {
      if (done[j]) {
        continue;
      }
      Item c = window.get(j);
      if (c.late() && !skipped.conflicts(footprints[j]) && !footprints[j].conflicts(results)) {
        c.replay.run();
        done[j] = true;
        moved++;
        return;
      }
      skipped.add(footprints[j]);
    }
  }


  /** The union of skipped commands' accesses: per state, the ranges read and the ranges written. */
  private static final class Ranges {
    private final Map<CommandFootprint.State, TreeMap<Long, Long>> reads = new EnumMap<>(CommandFootprint.State.class);
    private final Map<CommandFootprint.State, TreeMap<Long, Long>> writes =
        new EnumMap<>(CommandFootprint.State.class);
    private boolean all;

    void add(CommandFootprint f) {
      for (CommandFootprint.Access a : f.accesses()) {
        if (a.state() == CommandFootprint.State.ALL) {
          all = true;
          continue;
        }
        insert((a.write() ? writes : reads).computeIfAbsent(a.state(), s -> new TreeMap<>()), a.start(), a.end());
      }
    }

    boolean conflicts(CommandFootprint f) {
      if (all) {
        return true;
      }
      for (CommandFootprint.Access a : f.accesses()) {
        if (a.state() == CommandFootprint.State.ALL) {
          return true;
        }
        if (overlaps(writes.get(a.state()), a.start(), a.end())
            || (a.write() && overlaps(reads.get(a.state()), a.start(), a.end()))) {
          return true;
        }
      }
      return false;
    }

    private static boolean overlaps(TreeMap<Long, Long> set, long start, long end) {
      if (set == null || start >= end) {
        return false;
      }
      Map.Entry<Long, Long> below = set.lowerEntry(end);
      return below != null && below.getValue() > start;
    }

    private static void insert(TreeMap<Long, Long> set, long start, long end) {
      if (start >= end) {
        return;
      }
      Map.Entry<Long, Long> e = set.floorEntry(start);
      if (e != null && e.getValue() >= end) {
        return; // already covered (most skipped commands repeat a lane's ranges)
      }
      if (e != null && e.getValue() >= start) {
        start = e.getKey();
        end = Math.max(end, e.getValue());
      }
      Map.Entry<Long, Long> next = set.ceilingEntry(start);
      while (next != null && next.getKey() <= end) {
        end = Math.max(end, next.getValue());
        set.remove(next.getKey());
        next = set.ceilingEntry(start);
      }
      set.put(start, end);
    }
  }
}
