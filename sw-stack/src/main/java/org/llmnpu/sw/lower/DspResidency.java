package org.llmnpu.sw.lower;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * Which DSP programs sit in the Vector DSP's program memory, and where: the lowering's allocator for resident runs
 * ({@code --fusion full}). A program (its instructions) is run
 * <ul>
 *   <li>resident ({@code dsprun words=0 entry=…}, no load) while its words are intact in the program memory;</li>
 *   <li>otherwise by a plain {@code dsprun} (it loads the words at 0, as without residency), which overwrites every
 *       placement overlapping {@code 0..size−1}.</li>
 * </ul>
 * So a run never costs more than without residency, and a program run again before another one overwrote it loads
 * nothing. With {@code reload} (the lowering's policy only with two token blocks in flight, for the second block's
 * runs, whose parameterized programs are the first block's and come after others overwrote them: {@link #secondLane}
 * with {@code secondLaneOnly}; for both blocks' runs in windows across layers, {@code DecoderLowering#acrossLayers},
 * where the placements stay from layer to layer; in one block's program measured to cost more than it saves on
 * stories260K, whose
 * repeated programs are next to each other, see the sw-stack README) a program that comes again after being overwritten
 * is loaded by a {@code dspld} at a word placed from the top of the memory down (a multiple of a line's words,
 * {@code max(1, line / 8)}, as {@code dspld}'s {@code at} must be; when the top region is used up it starts again from
 * the top, forgetting what was there), then runs resident.
 *
 * <p>The lowering ({@link CommandStream}) and the cost model's walk ({@link DspRunCosts}) hold one each and
 * {@link #clear} it at the same points (a program's start, each layer's start but in windows across layers: so every
 * layer costs the same), so both
 * see the same loads and resident runs.
 */
final class DspResidency {
  private final int depth;
  private final int lineWords;
  private final int rows;
  /** Whether a program that comes again after being overwritten is loaded again by a {@code dspld}. */
  private final boolean reload;
  /** Intact placements: a program's identity (its instructions, {@link #use(Object, DspProgram)}) → {first word, words}. */
  private final Map<Object, int[]> placed = new HashMap<>();
  private final Set<Object> seen = new HashSet<>();
  private int top;
  /** Whether only a second token block's runs re-load ({@link #secondLane}). */
  private final boolean secondLaneOnly;
  /** Whether the runs now are a second token block's ({@link #secondLane}). */
  private boolean secondLane;

  /** The lowering's policy: resident while intact, else a plain run (never a {@code dspld}). */
  DspResidency(MachineParams p) {
    this(p, false);
  }

  /** With {@code reload}: a program that comes again after being overwritten is placed by a {@code dspld}. */
  DspResidency(MachineParams p, boolean reload) {
    this(p, reload, false);
  }

  /**
   * With {@code secondLaneOnly} (two token blocks in flight): only the second block's runs are placed by a
   * {@code dspld} when their program comes again ({@link #secondLane}), the first block's go plain.
   */
  DspResidency(MachineParams p, boolean reload, boolean secondLaneOnly) {
    this.secondLaneOnly = secondLaneOnly;
    this.reload = reload;
    this.depth = p.dsp().programDepth();
    this.rows = p.dsp().rows();
    this.lineWords = Math.max(1, p.lineBytes() / 8);
    this.top = depth;
  }

  /** The DSP buffer's rows (a run's program is rewritten for them, {@link DspRunParameterizer}). */
  int rows() {
    return rows;
  }

  /**
   * How a run of a program goes: {@code plain} (a loading {@code dsprun}, words at 0), else resident from
   * {@code entry}, after a {@code dspld} of its words at {@code entry} when {@code load}.
   */
  record Use(boolean plain, boolean load, int entry) {
    static final Use PLAIN = new Use(true, false, 0);
  }

  /**
   * The run of {@code program} now, by the policy of the class comment, the placements updated as the run leaves them:
   * the one decision {@link CommandStream} emits and {@link DspRunCosts} costs.
   */
  Use use(DspProgram program) {
    return use(program.instructions(), program);
  }

  /**
   * As above for a program known by {@code identity}: equal identities are the same instructions (the cost model's
   * walk names a run by the identity the lowering's program has, {@link DspRunCosts#sharedRuns}).
   */
  Use use(Object identity, DspProgram program) {
    int[] at = placed.get(identity);
    if (at != null) {
      return new Use(false, false, at[0]);
    }
    if (!reload || (secondLaneOnly && !secondLane) || !seen.contains(identity)) {
      evict(0, program.size());
      placed.put(identity, new int[] {0, program.size()});
      seen.add(identity);
      return Use.PLAIN;
    }
    return new Use(false, true, place(identity, program));
  }

  /**
   * A run of a program the lowering keeps in the program memory ({@link CommandStream#dspRunPinned}): resident while
   * intact, else a {@code dspld} from the top of the memory down (where plain runs, loaded at 0, leave it alone while
   * they are short) and then resident.
   */
  Use pin(Object identity, DspProgram program) {
    int[] at = placed.get(identity);
    if (at != null) {
      return new Use(false, false, at[0]);
    }
    seen.add(identity);
    return new Use(false, true, place(identity, program));
  }

  /** The program memory word {@code program} starts at, or −1 when it is not intact there. */
  int entryOf(DspProgram program) {
    int[] at = placed.get(program.instructions());
    return at == null ? -1 : at[0];
  }

  /** Whether the program known by {@code identity} is intact in the program memory. */
  boolean intact(Object identity) {
    return placed.containsKey(identity);
  }

  /** Whether {@code program} ran before (since the last {@link #clear}). */
  boolean seen(DspProgram program) {
    return seen.contains(program.instructions());
  }

  /** A plain {@code dsprun} of {@code program}: its words at {@code 0..size−1}, overwriting what overlaps them. */
  void plainRun(DspProgram program) {
    evict(0, program.size());
    placed.put(program.instructions(), new int[] {0, program.size()});
    seen.add(program.instructions());
  }

  /** Places {@code program} for a {@code dspld} and returns its first word. */
  int place(DspProgram program) {
    return place(program.instructions(), program);
  }

  private int place(Object identity, DspProgram program) {
    int size = program.size();
    if (size > depth) {
      throw new IllegalArgumentException("DSP program " + program.name() + " has " + size
          + " words, more than the program memory's " + depth);
    }
    int at = (top - size) / lineWords * lineWords;
    if (at < 0) {
      top = depth;
      at = (top - size) / lineWords * lineWords;
    }
    evict(at, at + size);
    placed.put(identity, new int[] {at, size});
    top = at;
    return at;
  }

  /**
   * From here the runs are a second token block's ({@code on}) or the first's. With {@code secondLaneOnly} only
   * a second block's run re-loads (its program is the first block's run of the same routine, parameterized); the
   * first block's runs go plain as without {@code reload}. So a reload never hinges on two routines' programs being equal by chance
   * (the cost model's layout-only programs carry placeholder constants where the lowering's carry calibrated scales),
   * and the cost model makes the lowering's choices.
   */
  void secondLane(boolean on) {
    secondLane = on;
  }

  /** Forgets every placement and every program seen (the program memory's contents are not relied on from here). */
  void clear() {
    placed.clear();
    seen.clear();
    top = depth;
  }

  private void evict(int from, int to) {
    for (Iterator<int[]> it = placed.values().iterator(); it.hasNext(); ) {
      int[] r = it.next();
      if (r[0] < to && from < r[0] + r[1]) {
        it.remove();
      }
    }
  }
}
