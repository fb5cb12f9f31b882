package org.llmnpu.rtl.mac;

/**
 * The cycle and traffic formulas of {@link GemmEngine}, evaluated in Java (see the engine's
 * Javadoc for their derivation). Tests hold the RTL to them exactly.
 */
public final class GemmCycleModel {
  private GemmCycleModel() {
  }

  /** Number of K tiles: {@code ceil(K / kPerTile)}. */
  public static long kTiles(MacArrayConfig a, int k) {
    return (k + (long) a.kPerTile() - 1) / a.kPerTile();
  }

  /**
   * Cycles from the first cycle after {@code start} until {@code done}: the recurrence
   * {@code P_{j+1} = max(P_j + rows, S_j + gap)}, {@code S_{j+1} = max(S_j + Mc_j, P_{j+1} + 1)}
   * over the passes (N tile, M chunk, K tile), {@code P_0 = 0, S_0 = 1, gap = max(cols − 1, 1)},
   * then {@code S_last + Mc_last − 1 + rows + cols}.
   */
  public static long cycles(MacArrayConfig a, int m, int k, int n) {
    return org.llmnpu.isa.CycleFormulas.engineCyclesOverKTiles(a.rows(), a.cols(), a.mTile(), m, kTiles(a, k), n);
  }

  /**
   * The closed form {@code nTiles · kTiles · M + rows + cols}, exact when every M chunk has at
   * least {@code max(rows, cols)} rows (then weight preload is fully hidden by double buffering).
   */
  public static long steadyStateCycles(MacArrayConfig a, int m, int k, int n) {
    long nTiles = (n + (long) a.cols() - 1) / a.cols();
    return nTiles * kTiles(a, k) * m + a.rows() + a.cols();
  }

  /** Partial-sum elements written back (= read back): {@code (ceil(kTiles / icAccumDepth) − 1) · M · N}. */
  public static long psumWritebacks(MacArrayConfig a, int m, int k, int n) {
    long tiles = kTiles(a, k);
    long depth = a.foldsAllKTiles() ? tiles : Math.min(a.icAccumDepth(), tiles);
    long groups = (tiles + depth - 1) / depth;
    return (groups - 1) * (long) m * n;
  }

  /**
   * MAC utilization: multiplications the GEMM needs on the array's PEs over the PE-cycles spent,
   * {@code M · N · K / kPerRow / (rows · cols · cycles)} ({@code kPerRow} = 1, or 2 with 2:4, where
   * each PE multiplies one kept weight of two).
   */
  public static double utilization(MacArrayConfig a, int m, int k, int n, long cycles) {
    double macs = (double) m * n * k / (a.kPerTile() / (double) a.rows());
    return macs / ((double) a.rows() * a.cols() * cycles);
  }

  /**
   * Cycles of {@link GemmPpmEngine} from start to done: the GEMM, one cycle to hand over, then per
   * N tile {@code cols} cycles of lane configuration, {@code M} rows streamed and {@code latency}
   * cycles of PPM drain: {@code cycles + 1 + nTiles · (cols + M + latency)}.
   */
  public static long ppmCycles(MacArrayConfig a, int m, int k, int n, int latency) {
    long nTiles = (n + (long) a.cols() - 1) / a.cols();
    return cycles(a, m, k, n) + 1 + nTiles * (a.cols() + m + latency);
  }
}
