package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspPipeline;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * Several runs of one DSP program shape with loops as one run: programs that differ only in their buffer rows (the
 * same instructions, registers, lengths and {@code LOOP}s) merged instruction by instruction, each merged loop's body
 * the copies' bodies interleaved, so that each copy's dependent instructions issue N slots apart and a pipelined DSP's
 * interlock waits N − 1 cycles less; then every value given a register anew (one per live value, a linear scan over
 * the code with loops: a value read in a loop but defined before it lives to the loop's end), so that the copies fit
 * the 32 registers. Instructions every copy has identically ({@code SETLEN}, an {@code LI} of a constant, {@code
 * HALT}, an {@code LD} of a row no copy writes into a register nothing else writes) are issued once.
 *
 * <p><b>Same results.</b> Each copy runs its own instructions in its own order with the same idx; no copy writes a
 * row another reads or writes ({@link DspLoopRows}), so the copies' memory operations commute; a value carried to the
 * next iteration keeps one register in each copy ({@link DspLoopRegisters}); a register read before the program writes
 * it makes the merge refuse. Null (not merged) when the shapes differ, the registers do not
 * suffice or the program memory does not hold the result.
 */
final class DspLoopMerge {
  private static final int VIRTUAL = DspInstruction.REGISTERS;

  private DspLoopMerge() {
  }

  /** The runs of {@code programs} in order: as many consecutive ones merged into each run as merge. */
  static List<DspProgram> mergeRuns(List<DspProgram> programs, int programDepth) {
    List<DspProgram> runs = new ArrayList<>();
    int at = 0;
    while (at < programs.size()) {
      DspProgram merged = null;
      int k = programs.size() - at;
      for (; k >= 2 && merged == null; k--) {
        merged = merge(programs.subList(at, at + k), programDepth);
      }
      if (merged == null) {
        runs.add(programs.get(at));
        at++;
      } else {
        runs.add(merged);
        at += k + 1;
      }
    }
    return runs;
  }

  /**
   * {@code programs} merged into one program and reordered for the interlock ({@link DspListSchedule}) where that costs
   * fewer cycles than {@code runs} (their runs as they are) joined and fits {@code programDepth}, else {@code runs}.
   */
  static List<DspProgram> scheduledRun(List<DspProgram> programs, List<DspProgram> runs, DspPipeline pipeline,
      int programDepth) {
    if (runs.size() < 2 || pipeline.executeStages() <= 1) {
      return runs;
    }
    DspProgram merged = merge(programs, programDepth);
    if (merged == null) {
      return runs;
    }
    DspProgram scheduled = DspListSchedule.schedule(merged, pipeline);
    return scheduled.size() <= programDepth && scheduled.cycles(pipeline) < DspChain.join(runs).cycles(pipeline)
        ? List.of(scheduled) : runs;
  }

  /** One program for all of {@code programs} (see the class), or null. */
  static DspProgram merge(List<DspProgram> programs, int programDepth) {
    if (programs.size() < 2 || !DspMerge.sameShape(programs, true) || !DspLoopRows.disjoint(programs)) {
      return null;
    }
    List<DspInstruction> first = programs.get(0).instructions();
    if (first.get(first.size() - 1).op() != DspOp.HALT) {
      return null;
    }
    Set<Integer> constants = new HashSet<>();
    Set<Integer> sharedLoads = sharedLoads(programs);
    for (int i = 0; i < first.size(); i++) {
      if (first.get(i).op() == DspOp.LI && DspMerge.shared(programs, i) || sharedLoads.contains(i)) {
        constants.add(first.get(i).rd());
      }
    }
    // the merged code on virtual registers: copy j's register r is VIRTUAL·j + r, a shared constant r itself
    List<int[]> regs = new ArrayList<>();
    List<DspInstruction> code = new ArrayList<>();
    int n = programs.size();
    for (int i = 0; i < first.size(); i++) {
      DspInstruction in = first.get(i);
      if (in.op() == DspOp.LOOP) {
        int body = 0;
        for (int k = i + 1; k <= i + (in.imm() >>> 16); k++) {
          body += DspMerge.shared(programs, k) || sharedLoads.contains(k) ? 1 : n;
        }
        if (body > 0xFFFF) {
          return null;
        }
        code.add(new DspInstruction(DspOp.LOOP, 0, 0, 0, 0, false, 0, body << 16 | in.imm() & 0xFFFF));
        regs.add(new int[] {-1, -1, -1, -1});
        continue;
      }
      boolean shared = DspMerge.shared(programs, i) || sharedLoads.contains(i);
      for (int j = 0; j < (shared ? 1 : n); j++) {
        DspInstruction c = programs.get(j).instructions().get(i);
        int base = VIRTUAL * j;
        DspOp op = c.op();
        regs.add(new int[] {
            op.writesRegister() ? virtual(c.rd(), base, constants) : -1,
            op.readsA() ? virtual(c.ra(), base, constants) : -1,
            op.readsB() ? virtual(c.rb(), base, constants) : -1,
            op.readsC() ? virtual(c.rc(), base, constants) : -1});
        code.add(c);
      }
    }
    if (code.size() > programDepth) {
      return null;
    }
    int[][] phys = DspLoopRegisters.allocate(code, regs);
    if (phys == null) {
      return null;
    }
    List<DspInstruction> out = new ArrayList<>();
    for (int i = 0; i < code.size(); i++) {
      DspInstruction c = code.get(i);
      int[] p = phys[i];
      out.add(new DspInstruction(c.op(), p[0] >= 0 ? p[0] : c.rd(), p[1] >= 0 ? p[1] : c.ra(),
          p[2] >= 0 ? p[2] : c.rb(), p[3] >= 0 ? p[3] : c.rc(), c.masked(), c.aux(), c.imm()));
    }
    StringBuilder name = new StringBuilder("merged");
    for (DspProgram p : programs) {
      name.append(" [").append(p.name()).append(']');
    }
    return new DspProgram(name.toString(), out);
  }

  /**
   * The {@code LD}s issued once for all copies: the same instruction in every copy, its register written by nothing
   * else. The copies read the same row, which none writes ({@link DspLoopRows#disjoint}: a row one copy writes another
   * may not read), so each would load the same value: outside the loops the token's bound, read by every head; in a
   * loop's body (the same idx for every copy) the slots' K scales and V weights every head of a token reads.
   */
  private static Set<Integer> sharedLoads(List<DspProgram> programs) {
    List<DspInstruction> first = programs.get(0).instructions();
    Set<Integer> loads = new HashSet<>();
    for (int i = 0; i < first.size(); i++) {
      DspInstruction in = first.get(i);
      if (in.op() != DspOp.LD) {
        continue;
      }
      boolean same = true;
      for (DspProgram p : programs) {
        same &= p.instructions().get(i).equals(in);
      }
      for (int k = 0; k < first.size() && same; k++) {
        same = k == i || !(first.get(k).op().writesRegister() && first.get(k).rd() == in.rd());
      }
      if (same) {
        loads.add(i);
      }
    }
    return loads;
  }

  private static int virtual(int r, int base, Set<Integer> constants) {
    return constants.contains(r) ? r : base + r;
  }
}
