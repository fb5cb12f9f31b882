package org.llmnpu.sw.lower;

import java.util.List;
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
 * next {@link StreamSchedule#SCAN} commands. The budget only chooses which moves to make; it does not change their results.
 */
final class BlockInterleaver implements CommandSink {
  private final CommandSink out;
  private final MachineParams p;
  private final StreamSchedule schedule;

  /**
   * @param prefetch start the held loads a streamed GEMM's later work needs before it (two blocks in flight, where the
   *                 next block's vectors and programs come in; in a single block's program measured to cost a few
   *                 cycles more, 65 on stories260K's 40-token prefill)
   */
  BlockInterleaver(CommandSink out, MachineParams p, boolean prefetch) {
    this(out, p, prefetch, null);
  }

  /**
   * As above; with {@code written} (two token blocks in flight: the external bytes {from, to} a step writes) each
   * command's footprint also holds its {@link LaneFootprints} ranges, so that the window goes in the order the cost
   * model's walk gives it ({@link WalkSchedule}).
   */
  BlockInterleaver(CommandSink out, MachineParams p, boolean prefetch, long[] written) {
    this.out = out;
    this.p = p;
    this.schedule = new StreamSchedule(prefetch);
    this.written = written;
  }

  /** The external bytes a step writes, with lane ranges; null: exact footprints only. */
  private final long[] written;
  /** The token block of the commands now ({@link #lane}). */
  private int lane;

  @Override
  public void lane(int lane) {
    this.lane = lane;
  }

  /** {@code c}'s footprint, with its lane ranges when two blocks are in flight. */
  private CommandFootprint footprint(Command c) {
    CommandFootprint exact = CommandFootprint.of(c, p);
    return written == null ? exact : LaneFootprints.with(exact, c, lane, written[0], written[1]);
  }

  /** A run's footprint ({@link CommandFootprint#ofRun}), with its lane ranges when two blocks are in flight. */
  private CommandFootprint runFootprint(CommandFootprint exact, DspProgram program, long entry) {
    return written == null ? exact : LaneFootprints.withRun(exact, program, entry, lane);
  }

  /** Streamed GEMMs started before earlier copies or runs so far. */
  long hoisted() {
    return schedule.hoisted();
  }

  /** Commands moved beside a streamed GEMM so far. */
  long moved() {
    return schedule.moved();
  }

  /** A run's item: its footprint without registers, and its {@link CommandFootprint.RegisterUse}. */
  private StreamSchedule.Item run(DspProgram program, CommandFootprint f, java.util.function.Consumer<CommandSink> replay,
                                  boolean resident) {
    return new StreamSchedule.Item(f, () -> replay.accept(out), resident, resident ? program.issued() : 0, -1,
        CommandFootprint.RegisterUse.of(program), false);
  }

  @Override
  public void command(Command c) {
    CommandFootprint f = footprint(c);
    boolean beside = c instanceof Command.DspIn || c instanceof Command.DspOut;
    Command.Gemm g = c instanceof Command.Gemm x && x.streamsWeights() ? x : null;
    boolean load = c instanceof Command.Load || c instanceof Command.Load4 || c instanceof Command.LoadMx;
    schedule.add(new StreamSchedule.Item(f, () -> out.command(c), beside, copyCycles(c), g == null ? -1 : streamBeats(g),
        null, load, c instanceof Command.Store));
    if (c instanceof Command.Halt || c instanceof Command.Fence || c instanceof Command.Snapshot) {
      flush();
    }
  }

  @Override
  public void dspRun(long address, DspProgram program) {
    schedule.add(run(program, runFootprint(CommandFootprint.ofRun(program, address, 0, p), program, -1),
        s -> s.dspRun(address, program), false));
  }

  @Override
  public void dspRun(long address, DspProgram run, List<DspProgram> parts) {
    schedule.add(run(run, runFootprint(CommandFootprint.ofRun(run, address, 0, p), run, -1),
        s -> s.dspRun(address, run, parts), false));
  }

  @Override
  public void dspRun(long address, DspProgram run, List<DspProgram> parts, DspRunParameters params) {
    schedule.add(run(run, runFootprint(CommandFootprint.ofRun(run, params, address, 0, p), run, -1),
        s -> s.dspRun(address, run, parts, params), false));
  }

  @Override
  public void dspRunResident(DspProgram run, List<DspProgram> parts, long entry, DspRunParameters params) {
    schedule.add(run(run, runFootprint(CommandFootprint.ofRun(run, params, -1, entry, p), run, entry),
        s -> s.dspRunResident(run, parts, entry, params), true));
  }

  @Override
  public void dspLoad(long address, DspProgram program, long at) {
    schedule.add(new StreamSchedule.Item(footprint(new Command.DspLoad(address, program.size(), at)),
        () -> out.dspLoad(address, program, at), false, 0, -1, null, true));
  }

  @Override
  public void dspRunResident(DspProgram program, long entry) {
    schedule.add(run(program, runFootprint(CommandFootprint.ofRun(program, -1, entry, p), program, entry),
        s -> s.dspRunResident(program, entry), true));
  }

  @Override
  public void dspRunResident(DspProgram run, List<DspProgram> parts, long entry) {
    schedule.add(run(run, runFootprint(CommandFootprint.ofRun(run, -1, entry, p), run, entry),
        s -> s.dspRunResident(run, parts, entry), true));
  }

  /**
   * With {@code on} (two blocks in flight, {@link DecoderLowering#acrossLayers}) a layer boundary does not end the
   * window: it is held as a marker of no footprint, passed on where the order reaches it, so that one block's next
   * layer may go beside the other block's last streams of this one.
   */
  BlockInterleaver acrossLayers(boolean on) {
    this.acrossLayers = on;
    return this;
  }

  /** Whether layer boundaries are markers in the window rather than its ends ({@link #acrossLayers}). */
  private boolean acrossLayers;

  @Override
  public void layerStart(int layer) {
    boundary(() -> out.layerStart(layer));
  }

  @Override
  public void layerEnd(int layer) {
    boundary(() -> out.layerEnd(layer));
  }

  private void boundary(Runnable mark) {
    if (acrossLayers) {
      schedule.add(new StreamSchedule.Item(new CommandFootprint(List.of()), mark, false, 0, -1, null, false));
    } else {
      flush();
      mark.run();
    }
  }

  /** Schedules and passes on every command held ({@link StreamSchedule#flush}). */
  void flush() {
    schedule.flush();
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
}
