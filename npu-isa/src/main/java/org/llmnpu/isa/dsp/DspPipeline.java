package org.llmnpu.isa.dsp;

/**
 * The Vector DSP's pipeline organisation (the {@code executeStages} parameter of
 * {@code vector-dsp}), which decides its stalls. {@link DspProgram#cycles(DspPipeline)},
 * {@link DspInterpreter} and {@link DspCycleFormula} count them exactly as the RTL's interlock does.
 *
 * <ul>
 *   <li>{@link #ONE_STAGE_EXECUTE} (default): issue (fetch, decode, register read with forwarding),
 *       then one execute stage that computes and writes every result. Every result is forwarded to
 *       the next instruction: no stalls, one cycle per instruction.</li>
 *   <li>{@link #TWO_STAGE_EXECUTE}: execute 1 computes the FP units' exact, unrounded values and
 *       completes every other op (integer, table, select, cross-lane, load, store); execute 2 rounds
 *       and writes back. Results are forwarded from execute 1 (ops that complete there) and from
 *       execute 2, so the only wait is for an FP result ({@link DspOp#roundsLate()}) used by the
 *       very next instruction: it is held one cycle and a bubble enters execute 1. The decision
 *       depends only on the two instructions (every lane runs the same program; a masked
 *       instruction counts as writing), so cycle counts are static.</li>
 * </ul>
 */
public enum DspPipeline {
  ONE_STAGE_EXECUTE(1),
  TWO_STAGE_EXECUTE(2);

  private final int executeStages;

  DspPipeline(int executeStages) {
    this.executeStages = executeStages;
  }

  /** The default organisation. */
  public static final DspPipeline DEFAULT = ONE_STAGE_EXECUTE;

  /** Execute stages: 1 or 2. */
  public int executeStages() {
    return executeStages;
  }

  /** The organisation with {@code executeStages} (1 or 2) execute stages. */
  public static DspPipeline ofExecuteStages(int executeStages) {
    for (DspPipeline p : values()) {
      if (p.executeStages == executeStages) {
        return p;
      }
    }
    throw new IllegalArgumentException("executeStages must be 1 or 2, got " + executeStages);
  }

  /** Whether {@code next}, issued right after {@code previous}, waits for its result. */
  public boolean stalls(DspInstruction previous, DspInstruction next) {
    if (this == ONE_STAGE_EXECUTE || previous == null || !previous.op().writesRegister()
        || !previous.op().roundsLate()) {
      return false;
    }
    int rd = previous.rd();
    DspOp op = next.op();
    return op.readsA() && next.ra() == rd || op.readsB() && next.rb() == rd || op.readsC() && next.rc() == rd;
  }

  /** Stall cycles of {@code next} after {@code previous}: 0 or 1. */
  public int stallCycles(DspInstruction previous, DspInstruction next) {
    return stalls(previous, next) ? 1 : 0;
  }
}
