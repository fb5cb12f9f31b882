package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.isa.dsp.DspRunParameters;

/**
 * {@link DspQuantizeFold} for a producer with loops (LLaMA-2-7B's two merged RMSNorms on edge-64,
 * {@link DspRoutines#mergedNorms}: the normalization a loop over the rows): right after each store of an input row,
 * in the loop or not, {@code TOINT} of the stored register by {@code k} into a register of its own and the code's store
 * to the same row of the codes (in a loop the same immediate offset, so each pass stores its own row); at the end the
 * length at full lanes and the scale rows' stores of {@code d}. Each code is {@code TOINT} of the FP16 value the
 * quantization would load, by the same {@code k}: the codes and scales are the two runs' bit for bit. The producer's
 * instructions stay; its stores of the input rows too where {@code keepInput} (the buffer then ends as after the two
 * runs), else they go ({@link DspQuantizeFold#runs}: scratch rows, one instruction a row). The registers are
 * allocated anew over the whole program ({@link DspLoopRegisters}; null where they do not suffice); the caller
 * reorders it for the interlock.
 *
 * <p>Applies where every input row of the quantizations is stored exactly once in the program (one store instruction
 * and one pass), on every lane (unmasked, or masked under a length that covers every pass's row), each such store's
 * rows all inside one quantization's input, the quantizations' lengths whole rows; else null.
 */
final class DspLoopQuantizeFold {
  private static final int VIRTUAL = DspInstruction.REGISTERS;

  private DspLoopQuantizeFold() {
  }

  /** {@code producer} with {@code codes} folded in (see the class), or null. */
  static DspProgram fold(DspProgram producer, List<DspQuantizeFold.Codes> codes, int lanes) {
    return fold(producer, codes, lanes, true);
  }

  /**
   * As {@link #fold(DspProgram, List, int)}; without {@code keepInput} each folded store of an input row goes (its
   * {@code TOINT} reads the same register; one instruction less a row), unless the producer loads one of the input rows
   * ({@link DspQuantizeFold#readsAny}): the rows then hold what they held before the run.
   */
  static DspProgram fold(DspProgram producer, List<DspQuantizeFold.Codes> codes, int lanes, boolean keepInput) {
    List<DspInstruction> in = producer.instructions();
    int n = in.size();
    int[] passes = new int[n];
    boolean[] full = new boolean[n];
    Map<Integer, Integer> storeOf = new HashMap<>(); // row → the one store instruction writing it, −1 for several
    long length = 0;
    int loopEnd = -1;
    int count = 1;
    for (int i = 0; i < n - 1; i++) {
      DspInstruction s = in.get(i);
      DspOp op = s.op();
      boolean parameterRow = op.addressesRows() && s.rc() >= DspRunParameters.RC_PARAMETER;
      if (op == DspOp.HALT || op.permutes() || parameterRow) {
        return null;
      }
      if (i > loopEnd) {
        count = 1;
      }
      if (op == DspOp.LOOP) {
        count = Math.max(1, s.imm() & 0xFFFF);
        loopEnd = i + (s.imm() >>> 16);
      } else if (op == DspOp.SETLEN) {
        length = Integer.toUnsignedLong(s.imm());
      } else if (op == DspOp.ST) {
        passes[i] = count;
        full[i] = !s.masked() || (long) count * lanes <= length;
        for (int p = 0; p < count; p++) {
          storeOf.merge(s.imm() + p, i, (a, b) -> -1);
        }
      }
    }
    // each folded store's quantization, by the store's index
    Map<Integer, DspQuantizeFold.Codes> codeOf = new HashMap<>();
    for (DspQuantizeFold.Codes c : codes) {
      if (c.len() % lanes != 0 || c.len() < lanes) {
        return null;
      }
      int rows = c.len() / lanes;
      for (int row = 0; row < rows; row++) {
        Integer at = storeOf.get(c.in() + row);
        if (at == null || at < 0 || !full[at]) {
          return null;
        }
        int first = in.get(at).imm();
        if (first < c.in() || first + passes[at] > c.in() + rows || codeOf.getOrDefault(at, c) != c) {
          return null;
        }
        codeOf.put(at, c);
      }
    }
    boolean drop = !keepInput && !DspQuantizeFold.readsAny(in, codes, lanes);
    // the code on virtual registers: the producer's own as they are, the constants and codes from VIRTUAL up
    Map<Integer, Integer> constant = new LinkedHashMap<>();
    int next = VIRTUAL;
    for (DspQuantizeFold.Codes c : codes) {
      for (int key : new int[] {c.k() & 0xFFFF, 0x10000 | c.d() & 0xFFFF}) {
        if (!constant.containsKey(key)) {
          constant.put(key, next++);
        }
      }
    }
    List<DspInstruction> code = new ArrayList<>();
    List<int[]> regs = new ArrayList<>();
    for (var e : constant.entrySet()) {
      add(code, regs, new DspInstruction(DspOp.LI, 0, 0, 0, 0, false, 0, e.getKey() & 0xFFFF),
          new int[] {e.getValue(), -1, -1, -1});
    }
    for (int i = 0; i < n - 1; i++) {
      DspInstruction s = in.get(i);
      DspQuantizeFold.Codes c = codeOf.get(i);
      if (s.op() == DspOp.LOOP) {
        int body = s.imm() >>> 16;
        int folded = 0;
        for (int k = i + 1; k <= i + body && k < n; k++) {
          folded += codeOf.containsKey(k) ? (drop ? 1 : 2) : 0;
        }
        if (body + folded > 0xFFFF) {
          return null;
        }
        add(code, regs, new DspInstruction(DspOp.LOOP, 0, 0, 0, 0, false, 0, (body + folded) << 16 | s.imm() & 0xFFFF),
            new int[] {-1, -1, -1, -1});
        continue;
      }
      DspOp op = s.op();
      if (c == null || !drop) {
        add(code, regs, s, new int[] {op.writesRegister() ? s.rd() : -1, op.readsA() ? s.ra() : -1,
            op.readsB() ? s.rb() : -1, op.readsC() ? s.rc() : -1});
      }
      if (c != null) {
        int v = next++;
        add(code, regs, new DspInstruction(DspOp.TOINT, 0, 0, 0, 0, false, 0, 0),
            new int[] {v, s.ra(), constant.get(c.k() & 0xFFFF), -1});
        add(code, regs, new DspInstruction(DspOp.ST, 0, 0, 0, 0, s.masked(), 0, c.out() + s.imm() - c.in()),
            new int[] {-1, v, -1, -1});
      }
    }
    add(code, regs, new DspInstruction(DspOp.SETLEN, 0, 0, 0, 0, false, 0, lanes), new int[] {-1, -1, -1, -1});
    for (DspQuantizeFold.Codes c : codes) {
      add(code, regs, new DspInstruction(DspOp.ST, 0, 0, 0, 0, true, 0, c.scaleRow()),
          new int[] {-1, constant.get(0x10000 | c.d() & 0xFFFF), -1, -1});
    }
    add(code, regs, in.get(n - 1), new int[] {-1, -1, -1, -1});
    int[][] phys = DspLoopRegisters.allocate(code, regs);
    if (phys == null) {
      return null;
    }
    List<DspInstruction> out = new ArrayList<>();
    for (int i = 0; i < code.size(); i++) {
      DspInstruction s = code.get(i);
      int[] p = phys[i];
      out.add(new DspInstruction(s.op(), p[0] >= 0 ? p[0] : s.rd(), p[1] >= 0 ? p[1] : s.ra(),
          p[2] >= 0 ? p[2] : s.rb(), p[3] >= 0 ? p[3] : s.rc(), s.masked(), s.aux(), s.imm()));
    }
    StringBuilder name = new StringBuilder(producer.name());
    for (DspQuantizeFold.Codes c : codes) {
      name.append(" [quantizeStatic ").append(c.len()).append(" @").append(c.in()).append("->").append(c.out())
          .append('/').append(c.scaleRow()).append(']');
    }
    return new DspProgram(name.toString(), out);
  }

  private static void add(List<DspInstruction> code, List<int[]> regs, DspInstruction in, int[] r) {
    code.add(in);
    regs.add(r);
  }
}
