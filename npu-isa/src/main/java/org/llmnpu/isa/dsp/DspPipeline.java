package org.llmnpu.isa.dsp;

/**
 * The Vector DSP's pipeline timing, shared by the RTL's interlock, {@link DspProgram#cycles()},
 * {@link DspInterpreter} and {@link DspCycleFormula}.
 *
 * <p>Three stages: issue (fetch, decode, register read with forwarding), execute 1 (the FP units up
 * to the exact, unrounded value; integer, table, select, cross-lane, load and store operations
 * complete here), execute 2 (FP rounding and write-back). Results are forwarded to the issuing
 * instruction from execute 2 and, for the ops that complete in execute 1, from execute 1. So the
 * only wait is for an FP result ({@link DspOp#roundsLate()}) used by the very next instruction:
 * that instruction is held one cycle and a bubble enters execute 1 ({@link #STALL_CYCLES}). The
 * decision depends only on the two instructions (every lane executes the same program; a masked
 * instruction counts as writing), so the cycle count is static.
 */
public final class DspPipeline {
  /** Cycles an instruction waits when it reads a register its immediate predecessor writes. */
  public static final int STALL_CYCLES = 1;

  private DspPipeline() {
  }

  /** Whether {@code next}, issued right after {@code previous}, waits for its result. */
  public static boolean stalls(DspInstruction previous, DspInstruction next) {
    if (previous == null || !previous.op().writesRegister() || !previous.op().roundsLate()) {
      return false;
    }
    int rd = previous.rd();
    DspOp op = next.op();
    return op.readsA() && next.ra() == rd || op.readsB() && next.rb() == rd || op.readsC() && next.rc() == rd;
  }

  /** Stall cycles of {@code next} after {@code previous}: 0 or {@link #STALL_CYCLES}. */
  public static int stallCycles(DspInstruction previous, DspInstruction next) {
    return stalls(previous, next) ? STALL_CYCLES : 0;
  }
}
