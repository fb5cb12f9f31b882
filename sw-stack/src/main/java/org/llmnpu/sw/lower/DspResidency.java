package org.llmnpu.sw.lower;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * Which DSP programs sit in the Vector DSP's program memory, and where: the lowering's allocator for resident runs.
 * A program (its instructions) is run
 * <ul>
 *   <li>resident ({@code dsprun words=0 entry=…}, no load) while its words are intact in the program memory;</li>
 *   <li>the first time, by a plain {@code dsprun} (it loads the words at 0, as without residency: a program run once
 *       costs what it did), which overwrites every placement overlapping {@code 0..size−1};</li>
 *   <li>when it comes again after being overwritten, by a {@code dspld} at a word placed from the top of the memory
 *       down (a multiple of a line's words, {@code max(1, line / 8)}, as {@code dspld}'s {@code at} must be; when the
 *       top region is used up it starts again from the top, forgetting what was there), then resident.</li>
 * </ul>
 * The lowering ({@link CommandStream}) and the walk ({@link CommandCosts}) hold one each and {@link #clear} it at the
 * same points (a program's start, each layer's start), so both see the same loads and resident runs.
 */
final class DspResidency {
  private final int depth;
  private final int lineWords;
  /** Intact placements: instructions → {first word, words}. */
  private final Map<List<DspInstruction>, int[]> placed = new HashMap<>();
  private final Set<List<DspInstruction>> seen = new HashSet<>();
  private int top;

  DspResidency(MachineParams p) {
    this.depth = p.dsp().programDepth();
    this.lineWords = Math.max(1, p.lineBytes() / 8);
    this.top = depth;
  }

  /** The program memory word {@code program} starts at, or −1 when it is not intact there. */
  int entryOf(DspProgram program) {
    int[] at = placed.get(program.instructions());
    return at == null ? -1 : at[0];
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
    placed.put(program.instructions(), new int[] {at, size});
    top = at;
    return at;
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
