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
   * Cycles from start to done on the default DSP ({@link DspPipeline#DEFAULT}): one per instruction
   * issued (every instruction outside a loop once, including {@code LOOP} and {@code HALT}; a loop
   * body {@code max(count, 1)} times).
   */
  public long cycles() {
    return cycles(DspPipeline.DEFAULT);
  }

  /**
   * Cycles from start to done on a DSP with {@code pipeline}: the issues plus one per interlock
   * stall (an instruction that uses the FP result of its dynamic predecessor waits one cycle with
   * {@link DspPipeline#TWO_STAGE_EXECUTE}; across the loop's back edge the predecessor of the body's
   * first instruction is its last).
   */
  public long cycles(DspPipeline pipeline) {
    long cycles = 0;
    int pc = 0;
    DspInstruction previous = null;
    while (pc < instructions.size()) {
      DspInstruction in = instructions.get(pc);
      cycles += 1 + pipeline.stallCycles(previous, in);
      previous = in;
      if (in.op() == DspOp.LOOP) {
        long count = Math.max(1, in.imm() & 0xFFFF);
        int body = in.imm() >>> 16;
        List<DspInstruction> b = instructions.subList(pc + 1, Math.min(instructions.size(), pc + 1 + body));
        if (!b.isEmpty()) {
          DspInstruction last = b.get(b.size() - 1);
          cycles += count * b.size() + bodyStalls(pipeline, b, in) + (count - 1) * bodyStalls(pipeline, b, last);
          previous = last;
        }
        pc += body;
      }
      pc++;
    }
    return cycles;
  }

  /** Stall cycles of one pass through {@code body} entered after {@code before}. */
  private static long bodyStalls(DspPipeline pipeline, List<DspInstruction> body, DspInstruction before) {
    long stalls = 0;
    DspInstruction previous = before;
    for (DspInstruction in : body) {
      stalls += pipeline.stallCycles(previous, in);
      previous = in;
    }
    return stalls;
  }
}
