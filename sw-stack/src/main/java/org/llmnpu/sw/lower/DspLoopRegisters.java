package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspOp;

/**
 * Register allocation for DSP code with (single-level) loops, on virtual registers ({@link DspLoopMerge}): each
 * value (an unmasked write; a masked write updates its value in place) gets the lowest physical register free from
 * its definition to its last read, a linear scan over the code as written. Loops: a value read in a loop's body but
 * defined before it lives to the body's end (every iteration reads it); a value written in a body lives as the scan
 * says (the next iteration writes it again before reading it). A value carried across iterations (a body reads a
 * register before writing it unmasked later in the body: a software-pipelined loop, {@link
 * org.llmnpu.isa.dsp.DspSumOfSquares}) is one value from its definition before the loop to at least the body's end,
 * the body's writes of it updating it in place, as a masked accumulator is: one register for all of them, as in the
 * code as written. Refused (null): a register read before any write, or more live values than the 32 registers.
 */
final class DspLoopRegisters {
  private DspLoopRegisters() {
  }

  /**
   * The physical registers of {@code code}: {@code regs[i] = {rd, ra, rb, rc}} virtual (−1 where not a register),
   * returned in the same layout, or null.
   */
  static int[][] allocate(List<DspInstruction> code, List<int[]> regs) {
    int size = code.size();
    int[] loopOf = loops(code);
    Map<Integer, Integer> current = new HashMap<>();
    List<Integer> defAt = new ArrayList<>();
    List<Integer> lastUse = new ArrayList<>();
    int[][] useValue = new int[size][4];
    int[] defValue = new int[size];
    java.util.Set<List<Integer>> carried = new java.util.HashSet<>();
    for (int i = 0; i < size; i++) {
      int[] r = regs.get(i);
      boolean masked = code.get(i).masked() && r[0] >= 0;
      java.util.Arrays.fill(useValue[i], -1);
      for (int k = 1; k <= (masked ? 4 : 3); k++) {
        int vr = k == 4 ? r[0] : r[k];
        if (vr < 0) {
          continue;
        }
        Integer v = current.get(vr);
        if (v == null) {
          return null;
        }
        if (loopOf[i] >= 0 && defAt.get(v) < loopOf[i] && writtenInBody(code, regs, loopOf[i], vr)) {
          // the first iteration reads the value from before the loop, the next ones the body's: carried, so the body's
          // writes of vr update this value in place (one register, as in the code as written)
          carried.add(List.of(loopOf[i], vr));
        }
        useValue[i][k % 4] = v;
        lastUse.set(v, Math.max(lastUse.get(v), i));
        if (loopOf[i] >= 0 && defAt.get(v) < loopOf[i]) {
          lastUse.set(v, Math.max(lastUse.get(v), bodyEnd(code, loopOf[i])));
        }
      }
      defValue[i] = -1;
      if (r[0] >= 0) {
        if (masked) {
          defValue[i] = useValue[i][0];
        } else if (loopOf[i] >= 0 && carried.contains(List.of(loopOf[i], r[0]))) {
          defValue[i] = current.get(r[0]);
        } else {
          defValue[i] = defAt.size();
          defAt.add(i);
          lastUse.add(-1);
          current.put(r[0], defValue[i]);
        }
      }
    }
    int[] phys = new int[defAt.size()];
    boolean[] busy = new boolean[DspInstruction.REGISTERS];
    int[][] out = new int[size][];
    for (int i = 0; i < size; i++) {
      int[] r = regs.get(i);
      out[i] = new int[] {-1, -1, -1, -1};
      for (int k = 1; k <= 3; k++) {
        if (useValue[i][k] >= 0) {
          out[i][k] = phys[useValue[i][k]];
        }
      }
      for (int k = 0; k <= 3; k++) {
        int v = useValue[i][k];
        if (v >= 0 && lastUse.get(v) == i && v != defValue[i]) {
          busy[phys[v]] = false;
        }
      }
      if (r[0] >= 0) {
        int v = defValue[i];
        if (defAt.get(v) == i) {
          int p = firstFree(busy);
          if (p < 0) {
            return null;
          }
          phys[v] = p;
          busy[p] = true;
        }
        out[i][0] = phys[v];
        if (lastUse.get(v) <= i) {
          busy[phys[v]] = false;
        }
      }
    }
    return out;
  }

  /** For each instruction the index of the {@code LOOP} whose body holds it, else −1. */
  private static int[] loops(List<DspInstruction> code) {
    int[] loopOf = new int[code.size()];
    java.util.Arrays.fill(loopOf, -1);
    for (int i = 0; i < code.size(); i++) {
      if (code.get(i).op() == DspOp.LOOP) {
        int end = bodyEnd(code, i);
        for (int k = i + 1; k <= end && k < code.size(); k++) {
          loopOf[k] = i;
        }
        i = end;
      }
    }
    return loopOf;
  }

  private static int bodyEnd(List<DspInstruction> code, int loop) {
    return loop + (code.get(loop).imm() >>> 16);
  }

  /** Whether the body of {@code loop} writes {@code vr} unmasked. */
  private static boolean writtenInBody(List<DspInstruction> code, List<int[]> regs, int loop, int vr) {
    for (int k = loop + 1; k <= bodyEnd(code, loop); k++) {
      if (regs.get(k)[0] == vr && !code.get(k).masked()) {
        return true;
      }
    }
    return false;
  }

  /** The first register not in use, or −1 when every one is. */
  static int firstFree(boolean[] busy) {
    for (int r = 0; r < busy.length; r++) {
      if (!busy[r]) {
        return r;
      }
    }
    return -1;
  }
}
