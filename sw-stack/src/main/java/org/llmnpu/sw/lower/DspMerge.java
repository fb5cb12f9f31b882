package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * Several runs of one straight-line DSP program shape as one run: programs that differ only in their
 * buffer rows (the same instructions, registers and length, no {@code LOOP}) are merged instruction by
 * instruction, copy j's written registers renamed to registers the program never uses, so that each
 * instruction issues N slots after the one before it in its own copy and a pipelined DSP's interlock
 * waits N − 1 cycles less. Instructions every copy has identically ({@code SETLEN}, an {@code LI} of
 * the same constant, {@code HALT}) are issued once. Each copy runs its own instructions in its own
 * order, so its results are those of its own run; when the programs differ in shape, or the copies'
 * registers or the program memory do not suffice, the programs are returned as they are.
 */
final class DspMerge {
  private DspMerge() {
  }

  /** The runs of {@code programs} in order: as many consecutive ones merged into each run as merge. */
  static List<DspProgram> mergeRuns(List<DspProgram> programs, int programDepth) {
    List<DspProgram> runs = new ArrayList<>();
    int at = 0;
    while (at < programs.size()) {
      int k = programs.size() - at;
      List<DspProgram> merged = null;
      for (; k >= 2; k--) {
        List<DspProgram> m = merge(programs.subList(at, at + k), programDepth);
        if (m.size() == 1) {
          merged = m;
          break;
        }
      }
      if (merged == null) {
        runs.add(programs.get(at));
        at++;
      } else {
        runs.addAll(merged);
        at += k;
      }
    }
    return runs;
  }

  /**
   * {@code program} as straight-line code (its loops unrolled, {@link #unrolled}; {@code lanes} the DSP's) with its
   * registers reallocated, each value to the lowest register free from its definition to its last use (a
   * masked write updates its register in place; a value read before any write keeps its register); null
   * when a loop does not unroll. Same results, as few registers as its live values need.
   */
  static DspProgram compact(DspProgram program, int lanes) {
    List<DspInstruction> code = unrolled(program.instructions(), lanes);
    if (code == null) {
      return null;
    }
    int size = code.size();
    // values: a definition (unmasked write) starts one; reads and masked writes extend it
    int[] current = new int[DspInstruction.REGISTERS];
    java.util.Arrays.fill(current, -1);
    List<Integer> lastUse = new ArrayList<>();
    List<Integer> liveIn = new ArrayList<>();
    int[][] useValues = new int[size][];
    int[] defValue = new int[size];
    for (int i = 0; i < size; i++) {
      DspInstruction in = code.get(i);
      int[] uses = uses(in);
      useValues[i] = new int[uses.length];
      for (int u = 0; u < uses.length; u++) {
        int r = uses[u];
        if (current[r] < 0) {
          current[r] = lastUse.size();
          lastUse.add(i);
          liveIn.add(r);
        }
        useValues[i][u] = current[r];
        lastUse.set(current[r], i);
      }
      defValue[i] = -1;
      if (in.op().writesRegister()) {
        if (!in.masked()) {
          current[in.rd()] = lastUse.size();
          lastUse.add(-1);
          liveIn.add(null);
        }
        defValue[i] = current[in.rd()];
      }
    }
    int values = lastUse.size();
    int[] phys = new int[values];
    java.util.Arrays.fill(phys, -1);
    boolean[] busy = new boolean[DspInstruction.REGISTERS];
    for (int v = 0; v < values; v++) {
      if (liveIn.get(v) != null) {
        phys[v] = liveIn.get(v);
        busy[phys[v]] = true;
      }
    }
    List<DspInstruction> out = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      DspInstruction in = code.get(i);
      int[] uses = uses(in);
      java.util.Map<Integer, Integer> map = new HashMap<>();
      for (int u = 0; u < uses.length; u++) {
        map.put(uses[u], phys[useValues[i][u]]);
      }
      // registers whose value is last read here are free for this instruction's result
      for (int u = 0; u < uses.length; u++) {
        int v = useValues[i][u];
        if (lastUse.get(v) == i && v != defValue[i] && liveIn.get(v) == null) {
          busy[phys[v]] = false;
        }
      }
      int rd = in.rd();
      if (defValue[i] >= 0) {
        int v = defValue[i];
        if (phys[v] < 0) {
          int r = DspLoopRegisters.firstFree(busy);
          if (r < 0) {
            return null;
          }
          phys[v] = r;
          busy[r] = true;
        }
        rd = phys[v];
        if (lastUse.get(v) <= i && liveIn.get(v) == null) {
          busy[rd] = false;
        }
      }
      DspOp op = in.op();
      out.add(new DspInstruction(op, rd, op.readsA() ? map.get(in.ra()) : in.ra(),
          op.readsB() ? map.get(in.rb()) : in.rb(), op.readsC() ? map.get(in.rc()) : in.rc(), in.masked(), in.aux(),
          in.imm()));
    }
    return new DspProgram(program.name(), out);
  }

  /**
   * {@code code} with its loops unrolled (straight-line code, same results), or null when it cannot be: iteration
   * i's {@code LD}/{@code ST} rows are {@code imm + i} (what {@code idx} adds), and a masked instruction, which writes
   * lane l iff {@code idx·lanes + l < len}, runs under {@code SETLEN max(0, len − i·lanes)} ({@code len} restored after
   * the loop), so each lane of each iteration sees the same operations. Refused: a loop whose body sets the length,
   * loops, halts or permutes lanes (those read {@code idx} otherwise), or an empty body.
   */
  static List<DspInstruction> unrolled(List<DspInstruction> code, int lanes) {
    List<DspInstruction> out = new ArrayList<>();
    long len = 0;
    for (int pc = 0; pc < code.size(); pc++) {
      DspInstruction in = code.get(pc);
      if (in.op() == DspOp.SETLEN) {
        len = Integer.toUnsignedLong(in.imm());
      }
      if (in.op() != DspOp.LOOP) {
        out.add(in);
        continue;
      }
      int count = Math.max(1, in.imm() & 0xFFFF);
      int bodySize = in.imm() >>> 16;
      if (bodySize == 0 || pc + bodySize >= code.size()) {
        return null;
      }
      List<DspInstruction> body = code.subList(pc + 1, pc + 1 + bodySize);
      boolean masked = false;
      for (DspInstruction b : body) {
        DspOp op = b.op();
        if (op == DspOp.SETLEN || op == DspOp.LOOP || op == DspOp.HALT || op.permutes()) {
          return null;
        }
        masked |= b.masked();
      }
      for (int i = 0; i < count; i++) {
        if (masked && count > 1) {
          out.add(setLength(Math.max(0, len - (long) i * lanes)));
        }
        for (DspInstruction b : body) {
          boolean memory = b.op() == DspOp.LD || b.op() == DspOp.ST;
          out.add(memory && i > 0 ? new DspInstruction(b.op(), b.rd(), b.ra(), b.rb(), b.rc(), b.masked(), b.aux(),
              b.imm() + i) : b);
        }
      }
      if (masked && count > 1) {
        out.add(setLength(len));
      }
      pc += bodySize;
    }
    return out;
  }

  private static DspInstruction setLength(long len) {
    return new DspInstruction(DspOp.SETLEN, 0, 0, 0, 0, false, 0, (int) len);
  }

  /** The registers {@code in} reads: its operands, and rd when it writes only some lanes (masked). */
  private static int[] uses(DspInstruction in) {
    DspOp op = in.op();
    List<Integer> r = new ArrayList<>();
    if (op.readsA()) {
      r.add(in.ra());
    }
    if (op.readsB() && !r.contains(in.rb())) {
      r.add(in.rb());
    }
    if (op.readsC() && !r.contains(in.rc())) {
      r.add(in.rc());
    }
    if (op.writesRegister() && in.masked() && !r.contains(in.rd())) {
      r.add(in.rd());
    }
    return r.stream().mapToInt(Integer::intValue).toArray();
  }

  /** One program for all of {@code programs} when they merge (see the class), else {@code programs}. */
  static List<DspProgram> merge(List<DspProgram> programs, int programDepth) {
    if (programs.size() < 2 || !sameShape(programs, false)) {
      return programs;
    }
    List<DspInstruction> first = programs.get(0).instructions();
    TreeSet<Integer> used = new TreeSet<>();
    List<Integer> written = new ArrayList<>();
    TreeSet<Integer> sharedWrites = new TreeSet<>();
    TreeSet<Integer> readFirst = new TreeSet<>();
    for (int i = 0; i < first.size(); i++) {
      DspInstruction in = first.get(i);
      used.add(in.rd());
      used.add(in.ra());
      used.add(in.rb());
      used.add(in.rc());
      DspOp op = in.op();
      for (int r : new int[] {op.readsA() ? in.ra() : -1, op.readsB() ? in.rb() : -1, op.readsC() ? in.rc() : -1,
          op.writesRegister() && in.masked() ? in.rd() : -1}) {
        if (r >= 0 && !written.contains(r) && !sharedWrites.contains(r)) {
          readFirst.add(r);
        }
      }
      if (op.writesRegister()) {
        if (shared(programs, i)) {
          sharedWrites.add(in.rd());
        } else if (!written.contains(in.rd())) {
          written.add(in.rd());
        }
      }
    }
    for (int r : written) {
      // a copy must write its renamed registers before it reads them, and the shared constants stay constant
      if (sharedWrites.contains(r) || readFirst.contains(r)) {
        return programs;
      }
    }
    List<Integer> free = new ArrayList<>();
    for (int r = 0; r < DspInstruction.REGISTERS; r++) {
      if (!used.contains(r)) {
        free.add(r);
      }
    }
    int n = programs.size();
    if ((n - 1) * written.size() > free.size()) {
      return programs;
    }
    List<Map<Integer, Integer>> renames = new ArrayList<>();
    for (int j = 0; j < n; j++) {
      Map<Integer, Integer> rename = new HashMap<>();
      for (int i = 0; j > 0 && i < written.size(); i++) {
        rename.put(written.get(i), free.get((j - 1) * written.size() + i));
      }
      renames.add(rename);
    }
    List<DspInstruction> code = new ArrayList<>();
    for (int i = 0; i < first.size() - 1; i++) {
      if (shared(programs, i)) {
        code.add(first.get(i));
        continue;
      }
      for (int j = 0; j < n; j++) {
        DspInstruction in = programs.get(j).instructions().get(i);
        Map<Integer, Integer> m = renames.get(j);
        code.add(new DspInstruction(in.op(), m.getOrDefault(in.rd(), in.rd()), m.getOrDefault(in.ra(), in.ra()),
            m.getOrDefault(in.rb(), in.rb()), m.getOrDefault(in.rc(), in.rc()), in.masked(), in.aux(), in.imm()));
      }
    }
    code.add(first.get(first.size() - 1));
    if (code.size() > programDepth) {
      return programs;
    }
    StringBuilder name = new StringBuilder("merged");
    for (DspProgram p : programs) {
      name.append(" [").append(p.name()).append(']');
    }
    return List.of(new DspProgram(name.toString(), code));
  }

  /**
   * Whether instruction i is the same in every program and issued once: SETLEN, HALT, or an LI of a register
   * nothing else writes (a constant).
   */
  static boolean shared(List<DspProgram> programs, int i) {
    List<DspInstruction> code = programs.get(0).instructions();
    DspInstruction in = code.get(i);
    if (in.op() != DspOp.SETLEN && in.op() != DspOp.LI && in.op() != DspOp.HALT) {
      return false;
    }
    for (int j = 0; in.op() == DspOp.LI && j < code.size(); j++) {
      if (j != i && code.get(j).op().writesRegister() && code.get(j).rd() == in.rd()) {
        return false;
      }
    }
    for (DspProgram p : programs) {
      if (!p.instructions().get(i).equals(in)) {
        return false;
      }
    }
    return true;
  }

  /** Same length, no loops (unless {@code loops}: the same ones), the same instructions up to the rows of loads and stores. */
  static boolean sameShape(List<DspProgram> programs, boolean loops) {
    List<DspInstruction> first = programs.get(0).instructions();
    for (DspProgram p : programs) {
      List<DspInstruction> code = p.instructions();
      if (code.size() != first.size()) {
        return false;
      }
      for (int i = 0; i < code.size(); i++) {
        DspInstruction a = first.get(i);
        DspInstruction b = code.get(i);
        boolean memory = a.op() == DspOp.LD || a.op() == DspOp.ST;
        if (a.op() == DspOp.LOOP && !loops || a.op() != b.op() || a.rd() != b.rd() || a.ra() != b.ra() || a.rb() != b.rb()
            || a.rc() != b.rc() || a.masked() != b.masked() || a.aux() != b.aux() || !memory && a.imm() != b.imm()) {
          return false;
        }
      }
    }
    return true;
  }
}
