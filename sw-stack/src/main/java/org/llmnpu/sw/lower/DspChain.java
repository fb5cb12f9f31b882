package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * Consecutive {@code dsprun}s (no other command between them) as fewer runs: programs joined one after the other into
 * one program, as many as the DSP's program memory holds. Each {@code dsprun} loads its program from external memory
 * before it starts (the memory latency plus a beat per two instructions, {@code CycleModel}), so a chain of k programs
 * saves k − 1 program-load latencies and command fetches ({@code --fusion full}).
 *
 * <p><b>Same results.</b> The DSP's registers and buffer persist from one run to the next, and a run starts with
 * the element count 0 and outside any loop (the golden {@code DspInterpreter} and the RTL): a joined program drops
 * each program's {@code HALT} but the last, and puts a {@code SETLEN 0} before a program that uses the element count
 * (a masked instruction) before it sets it. Loops are relative to their {@code LOOP} and end before the next program
 * starts (idx is 0 again). Buffer writes complete in execute 1, in issue order, so a program reading what the one
 * before it stored sees it; register hazards across the junction are interlocked as within a program, and the joined
 * program's static cycles ({@link DspProgram#cycles}) are what the golden simulator, the cost model and the RTL count.
 * A program that does not end in its only {@code HALT} is run alone.
 */
final class DspChain {
  private static final DspInstruction RESET_LENGTH = new DspInstruction(DspOp.SETLEN, 0, 0, 0, 0, false, 0, 0);

  private DspChain() {
  }

  /** The runs of {@code programs} in order, consecutive ones joined while the joined program fits {@code depth}. */
  static List<DspProgram> chain(List<DspProgram> programs, int depth) {
    return groups(programs, depth).stream().map(g -> g.size() == 1 ? g.get(0) : join(g)).toList();
  }

  /** The programs each run of {@link #chain} joins, in order (one program for a run that is not joined). */
  static List<List<DspProgram>> groups(List<DspProgram> programs, int depth) {
    List<List<DspProgram>> runs = new ArrayList<>();
    List<DspProgram> current = new ArrayList<>();
    int size = 0;
    for (DspProgram p : programs) {
      if (!joinable(p)) {
        flush(current, runs);
        size = 0;
        runs.add(List.of(p));
        continue;
      }
      int added = current.isEmpty() ? p.size() : p.size() - 1 + (needsReset(p) ? 1 : 0);
      if (!current.isEmpty() && size + added > depth) {
        flush(current, runs);
        size = 0;
        added = p.size();
      }
      current.add(p);
      size += added;
    }
    flush(current, runs);
    return runs;
  }

  private static void flush(List<DspProgram> current, List<List<DspProgram>> runs) {
    if (!current.isEmpty()) {
      runs.add(List.copyOf(current));
    }
    current.clear();
  }

  /** The programs one after the other: every {@code HALT} but the last dropped, the element count reset as needed. */
  static DspProgram join(List<DspProgram> programs) {
    List<DspInstruction> code = new ArrayList<>();
    StringBuilder name = new StringBuilder("chain");
    for (int i = 0; i < programs.size(); i++) {
      DspProgram p = programs.get(i);
      List<DspInstruction> in = p.instructions();
      if (i > 0 && needsReset(p)) {
        code.add(RESET_LENGTH);
      }
      code.addAll(i == programs.size() - 1 ? in : in.subList(0, in.size() - 1));
      name.append(" [").append(p.name()).append(']');
    }
    return new DspProgram(name.toString(), code);
  }

  /** Whether {@code p} ends with its only {@code HALT} (so dropping it joins the next program after it). */
  private static boolean joinable(DspProgram p) {
    List<DspInstruction> in = p.instructions();
    for (int i = 0; i < in.size() - 1; i++) {
      if (in.get(i).op() == DspOp.HALT) {
        return false;
      }
    }
    return !in.isEmpty() && in.get(in.size() - 1).op() == DspOp.HALT;
  }

  /** Whether {@code p} has a masked instruction before its first {@code SETLEN} (it relies on a run's count 0). */
  private static boolean needsReset(DspProgram p) {
    for (DspInstruction in : p.instructions()) {
      if (in.op() == DspOp.SETLEN) {
        return false;
      }
      if (in.masked()) {
        return true;
      }
    }
    return false;
  }
}
