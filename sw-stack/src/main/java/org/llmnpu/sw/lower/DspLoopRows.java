package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * The DSP buffer rows a program reads and writes: {@code LD} and {@code ST} at row {@code imm + idx}, idx over the
 * iterations of the enclosing {@code LOOP} (0 outside). Used by {@link DspLoopMerge} to merge programs with loops only
 * where their memory operations commute.
 */
final class DspLoopRows {
  private final BitSet read = new BitSet();
  private final BitSet written = new BitSet();

  private DspLoopRows() {
  }

  /**
   * Whether no program writes a row that another reads or writes; false when a program touches the buffer other
   * than by {@code LD}/{@code ST} (the permute unit's skewed and gathered rows).
   */
  static boolean disjoint(List<DspProgram> programs) {
    List<DspLoopRows> rows = new ArrayList<>();
    for (DspProgram p : programs) {
      DspLoopRows r = of(p.instructions());
      if (r == null) {
        return false;
      }
      rows.add(r);
    }
    for (int i = 0; i < rows.size(); i++) {
      for (int j = 0; j < rows.size(); j++) {
        if (i != j && (rows.get(i).written.intersects(rows.get(j).read)
            || rows.get(i).written.intersects(rows.get(j).written))) {
          return false;
        }
      }
    }
    return true;
  }

  /** The rows of {@code code}, or null when it reaches the buffer other than by LD/ST. */
  private static DspLoopRows of(List<DspInstruction> code) {
    DspLoopRows r = new DspLoopRows();
    int loopEnd = -1;
    int count = 1;
    for (int pc = 0; pc < code.size(); pc++) {
      DspInstruction in = code.get(pc);
      DspOp op = in.op();
      if (pc > loopEnd) {
        count = 1;
      }
      if (op == DspOp.LOOP) {
        count = Math.max(1, in.imm() & 0xFFFF);
        loopEnd = pc + (in.imm() >>> 16);
      } else if (op == DspOp.LD || op == DspOp.ST) {
        (op == DspOp.LD ? r.read : r.written).set(in.imm(), in.imm() + count);
      } else if (op.permutes()) {
        return null;
      }
    }
    return r;
  }
}
