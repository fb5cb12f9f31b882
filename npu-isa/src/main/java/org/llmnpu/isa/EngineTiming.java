package org.llmnpu.isa;

/**
 * Which GEMM engine runs the NPU's GEMM commands, for the cycle model: the systolic MAC array
 * (the default) or the processing-in-memory macro with {@code bitsPerCycle} input bits per cycle.
 * Both compute the same results (the golden GEMM does not depend on the engine); only
 * {@link #engineCycles} differs.
 *
 * @param pim          the PiM engine ({@code npu-rtl} {@code PimGemmBackend}) instead of the systolic array
 * @param bitsPerCycle PiM: INT8 input bits applied per cycle, 1..8 (1 = bit-serial); 0 for the systolic array
 */
public record EngineTiming(boolean pim, int bitsPerCycle) {
  /**
   * Pipeline registers in the PiM macro's columns in the NPU's PiM engine (the macro's {@code stages}): every
   * vector's periphery cycle, and so the engine's end, comes this many cycles later.
   */
  public static final int PIM_STAGES = 2;

  /** The systolic array. */
  public static final EngineTiming SYSTOLIC = new EngineTiming(false, 0);

  public EngineTiming {
    if (pim && (bitsPerCycle < 1 || bitsPerCycle > 8)) {
      throw new IllegalArgumentException("PiM bitsPerCycle must be in 1..8, got " + bitsPerCycle);
    }
    if (!pim) {
      bitsPerCycle = 0;
    }
  }

  /** Whether this engine takes streamed weights ({@code gemm wStream=1}): the systolic array does, the PiM engine not. */
  public boolean weightStream() {
    return !pim;
  }

  /** The PiM engine with {@code bitsPerCycle} input bits per cycle. */
  public static EngineTiming pim(int bitsPerCycle) {
    return new EngineTiming(true, bitsPerCycle);
  }

  /**
   * Cycles from the first cycle after the engine's start until its {@code done} is high. Systolic:
   * {@link CycleFormulas#engineCycles}. PiM ({@code rows × rows} macro, one bitcell bank): every pass
   * (N tile, M chunk, K tile) writes its {@code rows} weight rows and then streams its {@code Mc}
   * vectors at {@code C = ceil(8 / bitsPerCycle)} cycles each, the first in the last write cycle;
   * the next pass's writes start right after the last vector's last chunk, and done follows the last
   * vector's periphery cycle, {@link #PIM_STAGES} cycles after the first one after its last chunk:
   * {@code nTiles · kTiles · (mChunks · rows + M · C) + 1 + PIM_STAGES}.
   */
  public long engineCycles(MachineParams p, int m, int k, int n) {
    if (!pim) {
      return CycleFormulas.engineCycles(p.rows(), p.rows(), p.mTile(), m, k, n);
    }
    long rows = p.rows();
    long nTiles = (n + rows - 1) / rows;
    long kTiles = (k + rows - 1) / rows;
    long mChunks = (m + (long) p.mTile() - 1) / p.mTile();
    long c = (8 + bitsPerCycle - 1) / bitsPerCycle;
    return nTiles * kTiles * (mChunks * rows + (long) m * c) + 1 + PIM_STAGES;
  }
}
