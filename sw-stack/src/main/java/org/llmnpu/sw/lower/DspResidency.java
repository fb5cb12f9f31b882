package org.llmnpu.sw.lower;

import java.util.HashMap;
import java.util.Map;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * Which DSP programs sit in the Vector DSP's program memory, and where: the lowering's allocator for resident runs
 * ({@code dspld} once, then {@code dsprun words=0 entry=…}). A program not resident is placed at the first free word
 * (rounded up to a line's words, {@code max(1, line / 8)}, as {@code dspld}'s {@code at} must be); when it does not
 * fit in what is left, the memory is taken as empty again and it goes at 0 (every earlier placement forgotten). The
 * lowering ({@link CommandStream}) and the walk ({@link CommandCosts}) hold one each and call {@link #clear} at the same
 * points (a program's start, each layer's start), so both see the same loads and resident runs.
 */
final class DspResidency {
  private final int depth;
  private final int lineWords;
  private final Map<DspProgram, Integer> entries = new HashMap<>();
  private int free;

  DspResidency(MachineParams p) {
    this.depth = p.dsp().programDepth();
    this.lineWords = Math.max(1, p.lineBytes() / 8);
  }

  /** The program memory word {@code program} starts at, or −1 when it is not resident. */
  int entryOf(DspProgram program) {
    return entries.getOrDefault(program, -1);
  }

  /** Places {@code program} (not resident) and returns its first word (the {@code dspld}'s {@code at}). */
  int place(DspProgram program) {
    if (program.size() > depth) {
      throw new IllegalArgumentException("DSP program " + program.name() + " has " + program.size()
          + " words, more than the program memory's " + depth);
    }
    int at = (free + lineWords - 1) / lineWords * lineWords;
    if (at + program.size() > depth) {
      entries.clear();
      at = 0;
    }
    entries.put(program, at);
    free = at + program.size();
    return at;
  }

  /** Forgets every placement (the program memory's contents are not relied on from here). */
  void clear() {
    entries.clear();
    free = 0;
  }
}
