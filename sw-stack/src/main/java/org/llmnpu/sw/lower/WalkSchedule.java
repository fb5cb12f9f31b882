package org.llmnpu.sw.lower;

import java.util.List;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.sw.lower.CommandFootprint.Access;

/**
 * The interleaver's order for the cost model's extrapolated walk ({@link PhaseCostModel#interleave}): the walk's
 * commands are held in a {@link StreamSchedule} — the rules {@link BlockInterleaver} orders the lowering's commands by
 * — and costed in the order it gives, window by window (a layer of one block, or of both blocks in flight).
 *
 * <p>The walk costs commands without addresses, so each command's footprint is its {@link LaneFootprints} ranges: a
 * token block's ({@link #lane}) scratchpad and DSP rows one range each, the external bytes a step writes one range
 * (the K/V cache's loads, {@link CommandCosts#cacheLoad}, read it; every store writes it), the program memory's words
 * by the walk's {@link DspResidency} placements, the DSP's registers by each run's
 * {@link CommandFootprint.RegisterUse}, its tables and the PPM one state each; a command the walk costs as "other"
 * (the step's first and last, the {@code dsptab}) orders everything. With two blocks in flight the lowering's
 * interleaver orders its commands by the same ranges (with their exact footprints), so that the walk's order, and its
 * cycles, are the program's ({@code WalkScheduleTest}). The budget beside a stream (its W beats) and each copy's and
 * resident run's estimate are the interleaver's.
 */
final class WalkSchedule implements CostOrder {
  private final MachineParams p;
  private final StreamSchedule schedule;
  /** The token block the commands costed now belong to (0, or 1 for the second block in flight). */
  private int lane;

  WalkSchedule(MachineParams p, boolean prefetch) {
    this.p = p;
    this.schedule = new StreamSchedule(prefetch);
  }

  /** The commands from now on are block {@code lane}'s (0 or 1). */
  @Override
  public void lane(int lane) {
    this.lane = lane;
  }

  /** Costs every held command in the interleaver's order (a window's end). */
  @Override
  public void flush() {
    schedule.flush();
  }

  /** Commands moved beside a streamed GEMM (or loads started before one) so far. */
  @Override
  public long moved() {
    return schedule.moved();
  }

  /** A {@code load}/{@code load4} into the scratchpad (a load may start before a stream). */
  @Override
  public void load(String operator, boolean fromWritten, Runnable cost) {
    hold(LaneFootprints.load(lane, fromWritten), cost, false, 0, -1, null, true);
  }

  /** A {@code store} from the scratchpad. */
  @Override
  public void store(String operator, Runnable cost) {
    schedule.add(new StreamSchedule.Item(new CommandFootprint(LaneFootprints.store(lane)), cost, false, 0, -1, null,
        false, true));
  }

  /** A {@code dspin} or {@code dspout}, estimated as the interleaver does: by lines. */
  @Override
  public void copy(String operator, boolean in, long rows, long elems, int elemBytes, long tag, long tagEnd,
                   Runnable cost) {
    int lanes = p.dsp().lanes();
    long estimate = in ? rows * ((elems + Math.min(p.lineBytes() / elemBytes, lanes) - 1)
        / Math.min(p.lineBytes() / elemBytes, lanes)) + 1
        : rows * ((elems + Math.min(p.lineBytes() / 2, lanes) - 1) / Math.min(p.lineBytes() / 2, lanes));
    hold(LaneFootprints.copy(lane, in), cost, true, estimate, -1, null, false);
  }

  /** A GEMM (through the PPM: it reads the PPM's parameters). */
  @Override
  public void gemm(String operator, long tag, long rows, long streamBeats, boolean ppm, Runnable cost) {
    List<Access> a = new java.util.ArrayList<>(LaneFootprints.gemm(lane, ppm));
    if (p.xKeep()) {
      a.add(CommandFootprint.xBuffer()); // as CommandFootprint#of: GEMMs keep their order on an xKeep NPU
    }
    hold(a, cost, false, 0, streamBeats, null, false);
  }

  /** A {@code ppmcfg} or {@code pputab}. */
  @Override
  public void ppm(Runnable cost) {
    hold(LaneFootprints.ppmParameters(), cost, false, 0, -1, null, false);
  }

  /**
   * A {@code dsprun} of {@code program}: plain ({@code entry} −1: its words loaded at 0) or resident from word
   * {@code entry}.
   */
  @Override
  public void run(String operator, DspProgram program, int entry, Runnable cost) {
    boolean resident = entry >= 0;
    hold(LaneFootprints.run(lane, program, entry), cost, resident, resident ? program.issued() : 0, -1,
        CommandFootprint.RegisterUse.of(program), false);
  }

  /** A {@code dspld} of {@code words} program words at {@code at} (may start before a stream). */
  @Override
  public void programLoad(int at, long words, Runnable cost) {
    hold(LaneFootprints.programLoad(at, words), cost, false, 0, -1, null, true);
  }

  /** A layer's start or end in a window across layers: an item of no footprint. */
  @Override
  public void marker(Runnable at) {
    hold(List.of(), at, false, 0, -1, null, false);
  }

  /** A command that orders everything (the step's first and last, the DSP's tables). */
  @Override
  public void barrier(Runnable cost) {
    hold(CommandFootprint.barrier().accesses(), cost, false, 0, -1, null, false);
  }

  private void hold(List<Access> a, Runnable cost, boolean beside, long estimate, long streamBeats,
                    CommandFootprint.RegisterUse registers, boolean prefetch) {
    schedule.add(new StreamSchedule.Item(new CommandFootprint(a), cost, beside, estimate, streamBeats, registers,
        prefetch));
  }
}
