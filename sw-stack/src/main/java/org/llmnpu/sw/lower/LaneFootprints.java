package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.sw.lower.CommandFootprint.Access;
import org.llmnpu.sw.lower.CommandFootprint.State;

/**
 * The footprints two token blocks in flight are ordered by, the same in the lowering ({@link BlockInterleaver}) and in
 * the cost model's walk ({@link WalkSchedule}), so that both give a window of commands the same order and the walk's
 * cycles are the program's (the walk has no addresses; the lowering's exact footprints would let it make moves the walk
 * cannot see). A command is known by its token block ({@code lane}: {@link BlockLane}'s regions, 0 or 1) and its kind:
 * <ul>
 *   <li>a lane's scratchpad is one range: its loads, {@code dspout}s and GEMMs write it, its stores, {@code dspin}s and
 *       GEMMs read it (a GEMM of the lane's therefore orders every scratchpad access of the lane);</li>
 *   <li>a lane's DSP buffer rows are one range: its {@code dspin}s and runs write it, its {@code dspout}s read it;
 *       a run with a data-dependent gather or scatter ({@code LDG}/{@code STG}, every row) writes both lanes';</li>
 *   <li>external memory: the bytes a step writes (the K/V cache, Kᵀ, the logits) are one range, every store writes it
 *       and every load from it reads it; what a step only reads (weights, vectors, programs, tables) is no range;</li>
 *   <li>the program memory's words, the DSP's registers ({@link CommandFootprint.RegisterUse}) and tables, the PPM: as
 *       {@link CommandFootprint}; a {@code dsptab} and every command of no other kind order everything.</li>
 * </ul>
 * Each range is a superset of the bytes the golden touches where the lanes' regions are disjoint, as
 * {@link BlockLane#second} lays them out; the lowering also keeps every command's exact {@link CommandFootprint}
 * ({@link #with}), so a move it makes is sound whatever the lane ranges say.
 */
final class LaneFootprints {
  /** The lane ranges' first index on their state, beyond any real address or buffer element. */
  private static final long BASE = 1L << 50;
  /** The external-memory range a step writes. */
  private static final long WRITTEN = BASE + 16;

  private LaneFootprints() {
  }

  static Access spad(int lane, boolean write) {
    return new Access(State.SPAD, BASE + lane, BASE + lane + 1, write);
  }

  static Access dspRows(int lane, boolean write) {
    return new Access(State.DSP_BUFFER, BASE + lane, BASE + lane + 1, write);
  }

  /** Both lanes' DSP rows, written (a gather or scatter run). */
  static Access allDspRows() {
    return new Access(State.DSP_BUFFER, BASE, BASE + 2, true);
  }

  /** The external bytes a step writes: read by a load from them, written by a store. */
  static Access written(boolean write) {
    return new Access(State.EXT, WRITTEN, WRITTEN + 1, write);
  }

  /** A {@code load} of lane {@code lane}; {@code fromWritten}: from the bytes a step writes (the K/V cache, Kᵀ). */
  static List<Access> load(int lane, boolean fromWritten) {
    return fromWritten ? List.of(spad(lane, true), written(false)) : List.of(spad(lane, true));
  }

  /** A {@code store} of lane {@code lane}. */
  static List<Access> store(int lane) {
    return List.of(spad(lane, false), written(true));
  }

  /** A {@code dspin} ({@code in}) or {@code dspout} of lane {@code lane}. */
  static List<Access> copy(int lane, boolean in) {
    return List.of(spad(lane, !in), dspRows(lane, in));
  }

  /** A GEMM of lane {@code lane}; {@code ppm}: its results drain through the PPM. */
  static List<Access> gemm(int lane, boolean ppm) {
    return ppm ? List.of(spad(lane, true), new Access(State.PPM, 0, 1, false)) : List.of(spad(lane, true));
  }

  /** A {@code ppmcfg} or {@code pputab}. */
  static List<Access> ppmParameters() {
    return List.of(new Access(State.PPM, 0, 1, true));
  }

  /**
   * A {@code dsprun} of {@code program} of lane {@code lane}: plain ({@code entry} −1: its words written at 0) or
   * resident from word {@code entry}; without its registers ({@link StreamSchedule} resolves them).
   */
  static List<Access> run(int lane, DspProgram program, long entry) {
    List<Access> a = new ArrayList<>();
    a.add(entry < 0 ? new Access(State.DSP_PROGRAM, 0, program.size(), true)
        : new Access(State.DSP_PROGRAM, entry, entry + program.size(), false));
    a.add(new Access(State.DSP_TABLES, 0, 1, false));
    a.add(gathers(program) ? allDspRows() : dspRows(lane, true));
    return a;
  }

  /** A {@code dspld} of {@code words} words at {@code at}. */
  static List<Access> programLoad(long at, long words) {
    return List.of(new Access(State.DSP_PROGRAM, at, at + words, true));
  }

  /** Whether {@code program} gathers or scatters ({@code LDG}/{@code STG}: rows chosen by data, every row). */
  static boolean gathers(DspProgram program) {
    for (DspInstruction in : program.instructions()) {
      if (in.op() == DspOp.LDG || in.op() == DspOp.STG) {
        return true;
      }
    }
    return false;
  }

  /**
   * The lowering's command {@code c} of lane {@code lane}: its lane ranges with its exact footprint {@code exact}
   * ({@link CommandFootprint#of}); {@code writtenFrom}/{@code writtenTo}: the external bytes a step writes.
   */
  static CommandFootprint with(CommandFootprint exact, Command c, int lane, long writtenFrom, long writtenTo) {
    List<Access> lanes;
    if (c instanceof Command.Load || c instanceof Command.Load4 || c instanceof Command.LoadMx) {
      lanes = load(lane, exact.accesses().stream().anyMatch(x -> x.state() == State.EXT && x.start() < writtenTo
          && writtenFrom < x.end()));
    } else if (c instanceof Command.Store) {
      lanes = store(lane);
    } else if (c instanceof Command.DspIn || c instanceof Command.DspOut) {
      lanes = copy(lane, c instanceof Command.DspIn);
    } else if (c instanceof Command.Gemm g) {
      lanes = gemm(lane, g.throughPpm());
    } else if (c instanceof Command.PpmCfg || c instanceof Command.PpuTab || c instanceof Command.DspLoad) {
      lanes = List.of();
    } else {
      return CommandFootprint.barrier();
    }
    List<Access> a = new ArrayList<>(exact.accesses());
    a.addAll(lanes);
    return new CommandFootprint(a);
  }

  /** A run's lane ranges with its exact footprint (as {@link #with}). */
  static CommandFootprint withRun(CommandFootprint exact, DspProgram program, long entry, int lane) {
    List<Access> a = new ArrayList<>(exact.accesses());
    a.addAll(run(lane, program, entry));
    return new CommandFootprint(a);
  }
}
