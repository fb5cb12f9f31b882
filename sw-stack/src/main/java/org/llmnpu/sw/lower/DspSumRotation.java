package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * RMSNorm's sum of squares software-pipelined for a DSP with several execute stages (issue 32). The kernel's pass
 * ({@code DspKernels}) is a loop whose body handles one row, {@code LD x; WIDEN w, x; MUL32 w, w, w; ADD32 s, s, w}
 * (the add masked), and each instruction reads the FP result of the one before it: on the four-stage DSP every row
 * waits 3 + 3 cycles, 10 cycles a row for 4 instructions. Rotated, iteration i loads and widens row i + 2, squares row
 * i + 1 and adds row i: {@code LD x ← row i+2; ADD32 s += m; MUL32 m = w·w; WIDEN w, x}, with a prologue (row 0
 * widened and squared, row 1 widened) and an epilogue (the last two rows added). Each value is read an iteration after
 * it is written, so only the add waits, one cycle: 5 cycles a row.
 *
 * <p><b>Same results.</b> Every row sees the same instructions, and the adds run in row order into the same
 * accumulator (FP32 addition is not associative: the order is the golden {@code Norms}'): the sum, and all that
 * follows, is bit for bit the kernel's. The masked add of row i runs in iteration i (idx = i), so its mask is the
 * kernel's; the epilogue's two adds run outside the loop (idx 0), which masks correctly only for whole rows: the
 * rotation applies when the length is a whole number of rows ({@code len = rows · lanes}), at least three rows, and
 * a register is free for the squares (m); else the program is returned as it is.
 */
final class DspSumRotation {
  private DspSumRotation() {
  }

  /** {@code program} with its first sum-of-squares loop rotated (see the class), or {@code program} itself. */
  static DspProgram rotated(DspProgram program, int lanes) {
    List<DspInstruction> code = program.instructions();
    long len = -1;
    for (int pc = 0; pc < code.size(); pc++) {
      DspInstruction in = code.get(pc);
      if (in.op() == DspOp.SETLEN) {
        len = in.rc() == 0 ? Integer.toUnsignedLong(in.imm()) : -1;
      }
      if (in.op() != DspOp.LOOP) {
        continue;
      }
      int count = in.imm() & 0xFFFF;
      int body = in.imm() >>> 16;
      if (body == 4 && count >= 3 && len == (long) count * lanes && pc + 4 < code.size()
          && sumOfSquares(code.subList(pc + 1, pc + 5))) {
        int m = freeRegister(code);
        if (m < 0) {
          return program;
        }
        List<DspInstruction> out = new ArrayList<>(code.subList(0, pc));
        out.addAll(rotation(code.subList(pc + 1, pc + 5), count, m));
        out.addAll(code.subList(pc + 5, code.size()));
        return new DspProgram(program.name() + " (sum of squares rotated)", out);
      }
      pc += body;
    }
    return program;
  }

  /** Whether {@code body} is {@code LD x; WIDEN w, x; MUL32 w, w, w; masked ADD32 s, s, w} (x, w, s distinct, row r). */
  private static boolean sumOfSquares(List<DspInstruction> body) {
    DspInstruction ld = body.get(0);
    DspInstruction widen = body.get(1);
    DspInstruction mul = body.get(2);
    DspInstruction add = body.get(3);
    int x = ld.rd();
    int w = widen.rd();
    int s = add.rd();
    return ld.op() == DspOp.LD && ld.rc() == 0 && !ld.masked()
        && widen.op() == DspOp.WIDEN && widen.ra() == x && !widen.masked()
        && mul.op() == DspOp.MUL32 && mul.rd() == w && mul.ra() == w && mul.rb() == w && !mul.masked()
        && add.op() == DspOp.ADD32 && add.masked() && add.ra() == s && add.rb() == w
        && x != w && s != w && s != x;
  }

  /** The rotated pass over {@code count} rows of {@code body}, the squares in register {@code m}. */
  private static List<DspInstruction> rotation(List<DspInstruction> body, int count, int m) {
    DspInstruction ld = body.get(0);
    DspInstruction widen = body.get(1);
    DspInstruction add = body.get(3);
    int w = widen.rd();
    DspInstruction square = new DspInstruction(DspOp.MUL32, m, w, w, 0, false, 0, 0);
    DspInstruction accumulate = new DspInstruction(DspOp.ADD32, add.rd(), add.ra(), m, 0, true, 0, 0);
    List<DspInstruction> out = new ArrayList<>();
    out.add(ld);
    out.add(widen);
    out.add(row(ld, 1));
    out.add(square);
    out.add(widen);
    out.add(new DspInstruction(DspOp.LOOP, 0, 0, 0, 0, false, 0, 4 << 16 | (count - 2)));
    out.add(row(ld, 2));
    out.add(accumulate);
    out.add(square);
    out.add(widen);
    out.add(accumulate);
    out.add(square);
    out.add(accumulate);
    return out;
  }

  private static DspInstruction row(DspInstruction ld, int offset) {
    return new DspInstruction(ld.op(), ld.rd(), ld.ra(), ld.rb(), ld.rc(), ld.masked(), ld.aux(), ld.imm() + offset);
  }

  /** The highest register no instruction of {@code code} names, or −1. */
  private static int freeRegister(List<DspInstruction> code) {
    boolean[] used = new boolean[DspInstruction.REGISTERS];
    for (DspInstruction in : code) {
      used[in.rd()] = used[in.ra()] = used[in.rb()] = used[in.rc()] = true;
    }
    for (int r = DspInstruction.REGISTERS - 1; r > 0; r--) {
      if (!used[r]) {
        return r;
      }
    }
    return -1;
  }
}
