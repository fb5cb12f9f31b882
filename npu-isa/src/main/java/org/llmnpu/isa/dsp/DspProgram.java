package org.llmnpu.isa.dsp;

import java.util.List;

/**
 * A Vector DSP program: instructions from address 0, ending in {@link DspOp#HALT}.
 *
 * @param name what the program computes
 * @param instructions the instructions
 */
public record DspProgram(String name, List<DspInstruction> instructions) {
  public DspProgram {
    instructions = List.copyOf(instructions);
    if (instructions.isEmpty() || instructions.get(instructions.size() - 1).op() != DspOp.HALT) {
      throw new IllegalArgumentException("program " + name + " must end with HALT");
    }
  }

  /** Number of instructions (program memory words). */
  public int size() {
    return instructions.size();
  }

  /** The encoded words. */
  public long[] words() {
    return instructions.stream().mapToLong(DspInstruction::encode).toArray();
  }

  /**
   * Cycles from start to done: one per instruction issued (every instruction outside a loop once,
   * including {@code LOOP} and {@code HALT}; a loop body {@code count} times).
   */
  public long cycles() {
    long cycles = 0;
    int pc = 0;
    while (pc < instructions.size()) {
      DspInstruction in = instructions.get(pc);
      cycles++;
      if (in.op() == DspOp.LOOP) {
        int count = in.imm() & 0xFFFF;
        int body = in.imm() >>> 16;
        cycles += (long) count * body;
        pc += body;
      }
      pc++;
    }
    return cycles;
  }
}
