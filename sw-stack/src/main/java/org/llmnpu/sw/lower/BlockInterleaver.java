package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.isa.dsp.DspRunParameters;

/**
 * A scheduling pass over the lowering's command stream (a {@link CommandSink} in front of the program builder or the
 * cost model's sink, so both see the same reordered stream): after each GEMM whose W streams from memory it moves
 * later DSP copies ({@code dspin}, {@code dspout}) and resident runs ({@code dsprun words=0}) up to sit right after
 * it, where the controller dispatches them beside the W stream instead of after it ({@code CycleModel}: while a
 * stream runs only those three kinds go).
 *
 * <p><b>Soundness.</b> A command moves up past a command only when their {@link CommandFootprint}s do not conflict
 * (no state range that one writes and the other touches: scratchpad and memory bytes — so the K/V cache's rows keep
 * their causal order —, DSP buffer elements, program-memory words, the DSP's registers and tables, the PPM's
 * parameters); every range is a superset of what the golden touches, so the reordered program computes what the
 * sequential one does, bit for bit, on every engine (the RTL executes a program's commands with the golden's
 * results). Fences, halts, snapshots and layer boundaries are not crossed (the cost model's per-layer figures stay
 * those of the layer's commands). A DSP run is never moved past another run (both write the registers), and a copy
 * that touches the GEMM's own results is not moved beside it (it would wait for the drain anyway).
 *
 * <p><b>Order.</b> When the next command is a copy or a resident run and a later streamed GEMM depends on no command
 * still held (the next token block's GEMM, {@link BlockLane}), that GEMM goes first and the copies and runs after it:
 * the stream of one block runs beside the DSP work of the other. GEMMs never pass each other's dependences either.
 *
 * <p><b>Budget.</b> The copies and runs moved beside a streamed GEMM are estimated at their controller cycles
 * ({@code dspin}/{@code dspout}: a line a cycle; a run: its issued instructions) until they fill the stream's beats
 * ({@code K} W rows of {@code ceil(N/line)} beats, half for INT4, 0.625 for 2:4); candidates are searched among the
 * next {@link #SCAN} commands. The budget only chooses which moves to make; it does not change their results.
 */
final class BlockInterleaver implements CommandSink {
  /** Commands searched after a streamed GEMM for work to move beside it. */
  static final int SCAN = 4096;

  private final CommandSink out;
  private final MachineParams p;
  private final List<Event> window = new ArrayList<>();
  /** The held commands' footprints, registers resolved ({@link #registersResolved}), while a window is scheduled. */
  private CommandFootprint[] footprints;
  /** The window's dependences of streamed GEMMs ({@link #readyStream}), while a window is scheduled. */
  private StreamBlockers blockers;
  private long moved;
  private long hoisted;

  /** Whether loads start before a streamed GEMM ({@link #loadPrograms}): with two blocks in flight. */
  private final boolean prefetch;

  /**
   * @param prefetch start the held loads a streamed GEMM's later work needs before it (two blocks in flight, where the
   *                 next block's vectors and programs come in; in a single block's program measured to cost a few
   *                 cycles more, 65 on stories260K's 40-token prefill)
   */
  BlockInterleaver(CommandSink out, MachineParams p, boolean prefetch) {
    this.out = out;
    this.p = p;
    this.prefetch = prefetch;
  }

  /** Streamed GEMMs started before earlier copies or runs so far. */
  long hoisted() {
    return hoisted;
  }

  /** Commands moved beside a streamed GEMM so far. */
  long moved() {
    return moved;
  }

  private record Event(CommandFootprint footprint, Consumer<CommandSink> replay, boolean beside, long cost,
                       Command.Gemm streamed, CommandFootprint.RegisterUse registers, boolean prefetch) {
    Event(CommandFootprint footprint, Consumer<CommandSink> replay, boolean beside, long cost, Command.Gemm streamed) {
      this(footprint, replay, beside, cost, streamed, null, false);
    }
  }

  /** A run's event: its footprint without registers, and its {@link CommandFootprint.RegisterUse}. */
  private static Event run(DspProgram program, CommandFootprint f, Consumer<CommandSink> replay, boolean resident) {
    return new Event(f, replay, resident, resident ? program.issued() : 0, null,
        CommandFootprint.RegisterUse.of(program), false);
  }

  @Override
  public void command(Command c) {
    CommandFootprint f = CommandFootprint.of(c, p);
    boolean beside = c instanceof Command.DspIn || c instanceof Command.DspOut;
    Command.Gemm g = c instanceof Command.Gemm x && x.streamsWeights() ? x : null;
    boolean load = c instanceof Command.Load || c instanceof Command.Load4 || c instanceof Command.LoadMx;
    window.add(new Event(f, s -> s.command(c), beside, copyCycles(c), g, null, load));
    if (c instanceof Command.Halt || c instanceof Command.Fence || c instanceof Command.Snapshot) {
      flush();
    }
  }

  @Override
  public void dspRun(long address, DspProgram program) {
    window.add(run(program, CommandFootprint.ofRun(program, address, 0, p), s -> s.dspRun(address, program), false));
  }

  @Override
  public void dspRun(long address, DspProgram run, List<DspProgram> parts) {
    window.add(run(run, CommandFootprint.ofRun(run, address, 0, p), s -> s.dspRun(address, run, parts), false));
  }

  @Override
  public void dspRun(long address, DspProgram run, List<DspProgram> parts, DspRunParameters params) {
    window.add(run(run, CommandFootprint.ofRun(run, params, address, 0, p), s -> s.dspRun(address, run, parts, params),
        false));
  }

  @Override
  public void dspRunResident(DspProgram run, List<DspProgram> parts, long entry, DspRunParameters params) {
    window.add(run(run, CommandFootprint.ofRun(run, params, -1, entry, p),
        s -> s.dspRunResident(run, parts, entry, params), true));
  }

  @Override
  public void dspLoad(long address, DspProgram program, long at) {
    window.add(new Event(CommandFootprint.of(new Command.DspLoad(address, program.size(), at), p),
        s -> s.dspLoad(address, program, at), false, 0, null, null, true));
  }

  @Override
  public void dspRunResident(DspProgram program, long entry) {
    window.add(run(program, CommandFootprint.ofRun(program, -1, entry, p), s -> s.dspRunResident(program, entry),
        true));
  }

  @Override
  public void dspRunResident(DspProgram run, List<DspProgram> parts, long entry) {
    window.add(run(run, CommandFootprint.ofRun(run, -1, entry, p), s -> s.dspRunResident(run, parts, entry), true));
  }

  @Override
  public void layerStart(int layer) {
    flush();
    out.layerStart(layer);
  }

  @Override
  public void layerEnd(int layer) {
    flush();
    out.layerEnd(layer);
  }

  /**
   * Schedules and passes on every command held (the stream's end, a barrier or a layer boundary): in program order,
   * except that when the next command is a copy or a resident run, the first streamed GEMM after it that depends on
   * no command still held goes first (its stream then runs beside that work), and after each streamed GEMM the
   * copies and resident runs that may go beside it follow it ({@link #fillBeside}).
   */
  void flush() {
    int n = window.size();
    footprints = registersResolved();
    blockers = new StreamBlockers(footprints, SCAN);
    boolean[] done = new boolean[n];
    int cursor = 0;
    while (true) {
      while (cursor < n && done[cursor]) {
        cursor++;
      }
      if (cursor == n) {
        break;
      }
      int pick = window.get(cursor).beside ? readyStream(cursor, done) : -1;
      if (pick < 0) {
        pick = cursor;
      } else {
        hoisted++;
      }
      Event e = window.get(pick);
      if (e.streamed != null && prefetch) {
        loadPrograms(cursor, pick, done);
      }
      e.replay.accept(out);
      done[pick] = true;
      if (e.streamed != null) {
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
      Event e = window.get(i);
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
      Event c = window.get(j);
      if (c.prefetch && !skipped.conflicts(footprints[j]) && !footprints[j].conflicts(footprints[gemm])) {
        c.replay.accept(out);
        done[j] = true;
        moved++;
      } else {
        skipped.add(footprints[j]);
      }
    }
  }

  /**
   * The first streamed GEMM from {@code from} that depends on none of the commands before it still held, or −1 (also
   * when a held command that orders everything comes first). Every command before {@code from} has been passed on.
   */
  private int readyStream(int from, boolean[] done) {
    int end = Math.min(window.size(), from + SCAN);
    for (int j = from; j < end; j++) {
      if (done[j]) {
        continue;
      }
      if (blockers.ordersAll(j)) {
        return -1;
      }
      if (window.get(j).streamed != null && blockers.ready(j, done)) {
        return j;
      }
    }
    return -1;
  }

  /** Moves the held copies and resident runs from {@code from} that may go beside {@code gemm}'s W stream. */
  private void fillBeside(Event gemm, int from, boolean[] done) {
    long budget = streamBeats(gemm.streamed);
    Ranges skipped = new Ranges();
    CommandFootprint results = new CommandFootprint(gemm.footprint.accesses().stream()
        .filter(a -> a.write() && a.state() == CommandFootprint.State.SPAD).toList());
    int end = Math.min(window.size(), from + SCAN);
    for (int j = from; j < end && budget > 0 && !skipped.all; j++) {
      if (done[j]) {
        continue;
      }
      Event c = window.get(j);
      if (c.beside && !skipped.conflicts(footprints[j]) && !footprints[j].conflicts(results)) {
        c.replay.accept(out);
        done[j] = true;
        budget -= c.cost;
        moved++;
      } else {
        skipped.add(footprints[j]);
      }
    }
  }


  /** The W stream's beats: K rows (0.625·K for 2:4) of ceil(N/line) beats, half of them for INT4. */
  private long streamBeats(Command.Gemm g) {
    long rows = g.sparsity() == Command.DENSE ? g.k() : (g.k() * 5 + 7) / 8;
    long bytes = g.int4Weights() ? (g.n() + 1) / 2 : g.n();
    return rows * ((bytes + p.lineBytes() - 1) / p.lineBytes());
  }

  private long copyCycles(Command c) {
    int lanes = p.dsp().lanes();
    if (c instanceof Command.DspIn x) {
      long per = Math.min(p.lineBytes() / (x.format() == Command.FMT_INT32 ? 4 : x.format() == Command.FMT_INT8 ? 1
          : 2), lanes);
      return x.rows() * ((x.rowElems() + per - 1) / per) + 1;
    }
    if (c instanceof Command.DspOut x) {
      long per = Math.min(p.lineBytes() / 2, lanes);
      return x.rows() * ((x.rowElems() + per - 1) / per);
    }
    return 0;
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
