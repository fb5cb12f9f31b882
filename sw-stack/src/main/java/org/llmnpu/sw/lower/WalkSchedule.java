package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.sw.lower.CommandFootprint.Access;
import org.llmnpu.sw.lower.CommandFootprint.State;

/**
 * The interleaver's order for the cost model's extrapolated walk ({@link PhaseCostModel#interleave}): the walk's
 * commands are held in a {@link StreamSchedule} — the rules {@link BlockInterleaver} orders the lowering's commands by
 * — and costed in the order it gives, window by window (a layer of one block, or of both blocks in flight).
 *
 * <p>The walk costs commands without addresses, so each command's footprint is made of stand-in ranges, each a
 * superset of the lowering's for the same command (the walk may refuse a move the lowering makes, never make one
 * the lowering could not):
 * <ul>
 *   <li>a token block ({@link #lane}) has its own scratchpad regions and DSP rows, as {@link BlockLane}: its GEMM
 *       results (one range per result buffer, {@link CommandCosts#resultTag}), one range for every other scratchpad
 *       byte it uses (x, codes, vectors: written by its loads and {@code dspout}s, read by its GEMMs and
 *       {@code dspin}s) and one range for all its DSP buffer rows (every {@code dspin} and run writes it);</li>
 *   <li>the K/V cache is one range both blocks share: every command of the K/V and attention operators (not the
 *       RMSNorm before them) writes it
 *       (the second block's attention reads the rows the first block stores);</li>
 *   <li>the DSP's program memory by the words the walk's residency places ({@link DspResidency}), its registers by each
 *       run's {@link CommandFootprint.RegisterUse}, its tables and the PPM as one state each; a command the walk
 *       costs as "other" (the step's first and last) orders everything.</li>
 * </ul>
 * The budget beside a stream (its W beats) and each copy's and resident run's estimate are the interleaver's.
 */
final class WalkSchedule implements CostOrder {
  /** The scratchpad stand-ins: per lane a span of this many, results from 0, the other bytes at {@link #OPERANDS}. */
  private static final long LANE_SPAN = 1L << 40;
  private static final long OPERANDS = LANE_SPAN / 2;
  /** The K/V cache's stand-in, after every lane's span. */
  private static final long CACHE = 1L << 50;

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

  /**
   * Whether commands of {@code operator} (a profile row) touch the K/V cache: the K/V rows out, the cache's loads and
   * stores and the attention (not the RMSNorm before it, not the QKV GEMM, whose results are the block's).
   */
  static boolean cache(String operator) {
    return operator.startsWith("attention") && !operator.equals("attention RMSNorm") || operator.contains("K/V")
        || operator.contains("KV cache");
  }

  private long base() {
    return lane * LANE_SPAN;
  }

  private Access operands(boolean write) {
    return new Access(State.SPAD, base() + OPERANDS, base() + OPERANDS + 1, write);
  }

  private Access dspRows(boolean write) {
    return new Access(State.DSP_BUFFER, lane, lane + 1L, write);
  }

  private void addCache(List<Access> a, String operator) {
    if (cache(operator)) {
      a.add(new Access(State.SPAD, CACHE, CACHE + 1, true));
    }
  }

  /** Result buffer {@code tag} of {@code rows} rows ({@link CommandCosts#resultTag}); every result for an accumulation. */
  private Access results(long tag, long rows, boolean write) {
    long start = base() + Math.max(0, Math.min(tag, OPERANDS - 1));
    long end = rows >= OPERANDS - start + base() ? base() + OPERANDS : start + Math.max(1, rows);
    return new Access(State.SPAD, start, end, write);
  }

  /** A {@code load}/{@code load4} into the scratchpad (a load may start before a stream). */
  @Override
  public void load(String operator, Runnable cost) {
    List<Access> a = new ArrayList<>(List.of(operands(true)));
    addCache(a, operator);
    hold(a, cost, false, 0, -1, null, true);
  }

  /** A {@code store} from the scratchpad. */
  @Override
  public void store(String operator, Runnable cost) {
    List<Access> a = new ArrayList<>(List.of(operands(false), new Access(State.EXT, 0, 1, true)));
    addCache(a, operator);
    hold(a, cost, false, 0, -1, null, false);
  }

  /** Reads its result buffers or writes the lane's other bytes, writes the lane's DSP rows; estimated by lines. */
  @Override
  public void copy(String operator, boolean in, long rows, long elems, int elemBytes, long tag, long tagEnd,
                   Runnable cost) {
    List<Access> a = new ArrayList<>();
    a.add(dspRows(in));
    a.add(in && tag != 0 ? results(tag, Math.max(1, tagEnd - tag), false) : operands(!in));
    addCache(a, operator);
    int lanes = p.dsp().lanes();
    long estimate = in ? rows * ((elems + Math.min(p.lineBytes() / elemBytes, lanes) - 1)
        / Math.min(p.lineBytes() / elemBytes, lanes)) + 1
        : rows * ((elems + Math.min(p.lineBytes() / 2, lanes) - 1) / Math.min(p.lineBytes() / 2, lanes));
    hold(a, cost, true, estimate, -1, null, false);
  }

  /** Reads the lane's other bytes, writes its result buffer (through the PPM: reads it, writes the lane's bytes). */
  @Override
  public void gemm(String operator, long tag, long rows, long streamBeats, boolean ppm, Runnable cost) {
    List<Access> a = new ArrayList<>(List.of(operands(false), results(tag, rows, true)));
    if (ppm) {
      a.add(new Access(State.PPM, 0, 1, false));
      a.add(operands(true));
    }
    addCache(a, operator);
    hold(a, cost, false, 0, streamBeats, null, false);
  }

  /** A {@code ppmcfg} or {@code pputab}. */
  @Override
  public void ppm(Runnable cost) {
    hold(List.of(new Access(State.PPM, 0, 1, true)), cost, false, 0, -1, null, false);
  }

  /**
   * A {@code dsprun} of {@code program}: plain ({@code entry} −1: its words loaded at 0) or resident from word
   * {@code entry}.
   */
  @Override
  public void run(String operator, DspProgram program, int entry, Runnable cost) {
    List<Access> a = new ArrayList<>();
    a.add(entry < 0 ? new Access(State.DSP_PROGRAM, 0, program.size(), true)
        : new Access(State.DSP_PROGRAM, entry, entry + program.size(), false));
    a.add(new Access(State.DSP_TABLES, 0, 1, false));
    a.add(dspRows(true));
    addCache(a, operator);
    boolean resident = entry >= 0;
    hold(a, cost, resident, resident ? program.issued() : 0, -1, CommandFootprint.RegisterUse.of(program), false);
  }

  /** A {@code dspld} of {@code words} program words at {@code at} (may start before a stream). */
  @Override
  public void programLoad(int at, long words, Runnable cost) {
    hold(List.of(new Access(State.DSP_PROGRAM, at, at + words, true)), cost, false, 0, -1, null, true);
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
