package org.llmnpu.isa.dsp;

/**
 * The Vector DSP's pipeline organisation (the {@code executeStages} parameter of
 * {@code vector-dsp}, 1..4), which decides its stalls. {@link DspProgram#cycles(DspPipeline)},
 * {@link DspInterpreter} and {@link DspCycleFormula} count them exactly as the RTL's interlock does
 * ({@link DspIssueWindow}).
 *
 * <ul>
 *   <li>{@link #ONE_STAGE_EXECUTE} (default): issue (fetch, decode, register read with forwarding),
 *       then one execute stage that computes and writes every result. Every result is forwarded to
 *       the next instruction: no stalls, one cycle per instruction.</li>
 *   <li>{@link #TWO_STAGE_EXECUTE}: execute 1 computes the FP units' exact, unrounded values and
 *       completes every other op (integer, table, select, cross-lane, load, store); execute 2 rounds
 *       and writes back.</li>
 *   <li>{@link #THREE_STAGE_EXECUTE}: the FP units take three stages: operand decode and the
 *       significand products (wide ones as two registered partial products), alignment and exact
 *       sum, normalization and rounding.</li>
 *   <li>{@link #FOUR_STAGE_EXECUTE}: as three, with the rounder split after the normalization.</li>
 * </ul>
 * With N execute stages every result is written back in execute N, in issue order (fixed latency);
 * ops that are not FP ({@link DspOp#roundsLate()} false) complete in execute 1 and their results
 * are forwarded from every stage, an FP result only from execute N. So an instruction at issue
 * waits while an FP op in execute j &lt; N writes one of the registers it reads: N − j cycles for
 * the youngest such j (a bubble enters execute 1 each cycle). The decision depends only on the
 * instructions (every lane runs the same program; a masked instruction counts as writing), so
 * cycle counts are static.
 */
public enum DspPipeline {
  ONE_STAGE_EXECUTE(1),
  TWO_STAGE_EXECUTE(2),
  THREE_STAGE_EXECUTE(3),
  FOUR_STAGE_EXECUTE(4);

  private final int executeStages;

  DspPipeline(int executeStages) {
    this.executeStages = executeStages;
  }

  /** The default organisation. */
  public static final DspPipeline DEFAULT = ONE_STAGE_EXECUTE;

  /** Execute stages: 1..4. */
  public int executeStages() {
    return executeStages;
  }

  /** Cycles from an FP op's issue to the first issue that can use its result: the execute stages. */
  public int fpLatency() {
    return executeStages;
  }

  /** The organisation with {@code executeStages} (1..4) execute stages. */
  public static DspPipeline ofExecuteStages(int executeStages) {
    for (DspPipeline p : values()) {
      if (p.executeStages == executeStages) {
        return p;
      }
    }
    throw new IllegalArgumentException("executeStages must be 1, 2, 3 or 4, got " + executeStages);
  }

  /** Whether {@code next} reads the register that {@code producer} (an FP op) writes. */
  static boolean waitsFor(DspInstruction producer, DspInstruction next) {
    if (producer == null || !producer.op().writesRegister() || !producer.op().roundsLate()) {
      return false;
    }
    int rd = producer.rd();
    DspOp op = next.op();
    return op.readsA() && next.ra() == rd || op.readsB() && next.rb() == rd || op.readsC() && next.rc() == rd;
  }

  /** Whether {@code next}, issued right after {@code previous} (no other instruction in flight), waits. */
  public boolean stalls(DspInstruction previous, DspInstruction next) {
    return executeStages > 1 && waitsFor(previous, next);
  }
}
