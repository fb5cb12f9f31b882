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
    instructions = InstructionList.copyOf(instructions);
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
   * Cycles from start to done on a DSP with {@code pipeline}: the issues plus the interlock stalls
   * ({@link DspIssueWindow}: an instruction that reads the FP result of one still in flight waits;
   * across the loop's back edge the body's first instructions follow its last).
   */
  public long cycles(DspPipeline pipeline) {
    long cycles = 0;
    int pc = 0;
    DspIssueWindow window = new DspIssueWindow(pipeline);
    while (pc < instructions.size()) {
      DspInstruction in = instructions.get(pc);
      cycles += 1 + window.issue(in);
      if (in.op() == DspOp.LOOP) {
        long count = Math.max(1, in.imm() & 0xFFFF);
        int body = in.imm() >>> 16;
        List<DspInstruction> b = instructions.subList(pc + 1, Math.min(instructions.size(), pc + 1 + body));
        if (!b.isEmpty()) {
          cycles += loopCycles(window, b, count);
        }
        pc += body;
      }
      pc++;
    }
    return cycles;
  }

  /**
   * Instructions a run issues (what the NPU's {@code dspInstructions} counter adds for it): every instruction
   * outside a loop once, including {@code LOOP} and {@code HALT}, a loop body {@code max(count, 1)} times; the
   * cycles without the interlock stalls.
   */
  public long issued() {
    long issued = 0;
    int pc = 0;
    while (pc < instructions.size()) {
      DspInstruction in = instructions.get(pc);
      issued++;
      if (in.op() == DspOp.LOOP) {
        long count = Math.max(1, in.imm() & 0xFFFF);
        int body = in.imm() >>> 16;
        issued += count * Math.min(body, instructions.size() - pc - 1);
        pc += body;
      }
      pc++;
    }
    return issued;
  }

  /**
   * Cycles of {@code count} passes through {@code body}; the window's state at a pass's entry
   * repeats after a few passes, and the passes of one period are counted once and multiplied.
   */
  private static long loopCycles(DspIssueWindow window, List<DspInstruction> body, long count) {
    java.util.Map<List<DspInstruction>, long[]> seen = new java.util.HashMap<>();
    long cycles = 0;
    long pass = 0;
    while (pass < count) {
      long[] earlier = seen.putIfAbsent(window.state(), new long[] {pass, cycles});
      if (earlier != null) {
        long period = pass - earlier[0];
        long periods = (count - pass) / period;
        cycles += periods * (cycles - earlier[1]);
        pass += periods * period;
        seen.clear();
        if (pass >= count) {
          break;
        }
      }
      for (DspInstruction in : body) {
        cycles += 1 + window.issue(in);
      }
      pass++;
    }
    return cycles;
  }
}
