package org.llmnpu.isa.dsp;

import java.util.ArrayList;
import java.util.List;

/** Builds a {@link DspProgram}: one method call per instruction, {@link #loop} for a loop body. */
public final class DspAssembler {
  private final List<DspInstruction> code = new ArrayList<>();
  private boolean inLoop;

  /** Appends one instruction. */
  public DspAssembler emit(DspOp op, int rd, int ra, int rb, int rc, boolean masked, int aux, int imm) {
    code.add(new DspInstruction(op, rd, ra, rb, rc, masked, aux, imm));
    return this;
  }

  /** {@code rd = op(ra, rb)}. */
  public DspAssembler op(DspOp op, int rd, int ra, int rb) {
    return emit(op, rd, ra, rb, 0, false, 0, 0);
  }

  /** {@code rd = op(ra, rb)} in the lanes whose element is below the length only. */
  public DspAssembler masked(DspOp op, int rd, int ra, int rb) {
    return emit(op, rd, ra, rb, 0, true, 0, 0);
  }

  /** {@code rd = op(ra, rb)} with a sub-operation. */
  public DspAssembler aux(DspOp op, int aux, int rd, int ra, int rb) {
    return emit(op, rd, ra, rb, 0, false, aux, 0);
  }

  /** FP16 {@code rd = ra · rb + rc}, rounded once. */
  public DspAssembler fma(int rd, int ra, int rb, int rc) {
    return emit(DspOp.FMA16, rd, ra, rb, rc, false, 0, 0);
  }

  /** FP32 {@code rd = ra · rb + rc}, rounded once; {@code masked}: lanes below the length only. */
  public DspAssembler fma32(int rd, int ra, int rb, int rc, boolean masked) {
    return emit(DspOp.FMA32, rd, ra, rb, rc, masked, 0, 0);
  }

  /** {@code rd = imm}. */
  public DspAssembler li(int rd, int imm) {
    return emit(DspOp.LI, rd, 0, 0, 0, false, 0, imm);
  }

  /** {@code rd = buffer[row + idx]}. */
  public DspAssembler load(int rd, int row) {
    return emit(DspOp.LD, rd, 0, 0, 0, false, 0, row);
  }

  /** {@code buffer[row + idx] = ra}, lanes below the length only. */
  public DspAssembler store(int row, int ra) {
    return emit(DspOp.ST, 0, ra, 0, 0, true, 0, row);
  }

  /** A loop of {@code count} iterations over the instructions {@code body} emits (no nesting). */
  public DspAssembler loop(int count, Runnable body) {
    if (inLoop) {
      throw new IllegalStateException("loops do not nest");
    }
    if (count < 1 || count > 0xFFFF) {
      throw new IllegalArgumentException("loop count must be in 1..65535, got " + count);
    }
    int at = code.size();
    code.add(null);
    inLoop = true;
    body.run();
    inLoop = false;
    int length = code.size() - at - 1;
    if (length < 1 || length > 0xFFFF) {
      throw new IllegalArgumentException("loop body must have 1..65535 instructions, got " + length);
    }
    code.set(at, new DspInstruction(DspOp.LOOP, 0, 0, 0, 0, false, 0, (length << 16) | count));
    return this;
  }

  /** Runs {@code body} and returns the instructions it appended, removing them from the program. */
  public List<DspInstruction> capture(Runnable body) {
    int at = code.size();
    body.run();
    List<DspInstruction> captured = new ArrayList<>(code.subList(at, code.size()));
    code.subList(at, code.size()).clear();
    return captured;
  }

  /** Appends {@code instructions} as they are. */
  public DspAssembler emitAll(List<DspInstruction> instructions) {
    code.addAll(instructions);
    return this;
  }

  /** {@code SETLEN n}. */
  public DspAssembler setLength(int n) {
    return emit(DspOp.SETLEN, 0, 0, 0, 0, false, 0, n);
  }

  /** Instructions so far. */
  public int size() {
    return code.size();
  }

  /** Appends HALT and returns the program. */
  public DspProgram finish(String name) {
    emit(DspOp.HALT, 0, 0, 0, 0, false, 0, 0);
    return new DspProgram(name, code);
  }
}
