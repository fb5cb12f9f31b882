package org.llmnpu.isa;

/**
 * Analytical cycle model of the NPU, command by command. It keeps two numbers of state: the
 * current cycle {@code now} (cycle 0 = the first cycle after {@code start}) and the first cycle
 * {@code memFree} at which the external memory accepts another beat. With {@code I =}
 * {@link MachineParams#beatInterval()} and {@code lat =} {@link MachineParams#memLatency()}, a phase
 * that issues {@code n} beats from cycle {@code e} issues beat i at {@code t_i = max(e, memFree) + i·I}
 * and leaves {@code memFree = t_{n−1} + I}; read data of beat i arrives in cycle {@code t_i + lat}.
 *
 * <pre>
 * fetch  (b = beatsPerCommand)  decode cycle = t_{b−1} + lat + 1; the command starts one cycle later
 * load   (n = rows · ceil(rowBytes / line))  next fetch at t_{n−1} + lat + 1
 * store  (n as for load)        next fetch at t_{n−1} + 1 (writes are posted)
 * gemm   M·kTiles (X lines) + K·nTiles (W rows) + (engine + 2) (start cycle, run until done seen)
 *        + M·ceil(4·N / line) (drain)
 *        where engine = the GEMM engine's cycle recurrence (see {@link #engineCycles})
 * fence, halt  0 cycles after decode (execution is in order: the fence has nothing to wait for)
 * </pre>
 * {@code cycles} at the end = the cycle in which {@code done} (or the error) is raised.
 */
public final class CycleModel {
  private final MachineParams p;
  private long now;
  private long memFree;
  private long fetchCycles;
  private long dmaCycles;
  private long gemmCycles;
  private long arrayCycles;
  private long stallCycles;

  public CycleModel(MachineParams p) {
    this.p = p;
  }

  public long now() {
    return now;
  }

  /** Issues n beats from the current cycle; returns the cycle of the last issue. */
  private long issue(long n) {
    long first = Math.max(now, memFree);
    stallCycles += (first - now) + (n - 1) * (long) (p.beatInterval() - 1);
    long last = first + (n - 1) * (long) p.beatInterval();
    memFree = last + p.beatInterval();
    return last;
  }

  /** Fetch and decode of one command; afterwards {@code now} is the command's first execution cycle. */
  public void fetchAndDecode() {
    long start = now;
    long last = issue(p.beatsPerCommand());
    now = last + p.memLatency() + 2;
    fetchCycles += now - start;
  }

  /** A fetch that fails its address check in its first cycle. */
  public void fetchFault() {
    fetchCycles += 1;
    now += 1;
  }

  public void load(long beats) {
    long start = now;
    long last = issue(beats);
    now = last + p.memLatency() + 1;
    dmaCycles += now - start;
  }

  public void store(long beats) {
    long start = now;
    long last = issue(beats);
    now = last + 1;
    dmaCycles += now - start;
  }

  public void gemm(int m, int k, int n) {
    int line = p.lineBytes();
    long kTiles = (k + (long) p.rows() - 1) / p.rows();
    long nTiles = (n + (long) p.rows() - 1) / p.rows();
    long engine = engineCycles(p.rows(), p.rows(), p.mTile(), m, k, n);
    long drainLines = 0;
    for (long nt = 0; nt < nTiles; nt++) {
      long cols = Math.min(p.rows(), n - nt * p.rows());
      drainLines += (4 * cols + line - 1) / line;
    }
    long total = m * kTiles + k * nTiles + engine + 2 + m * drainLines;
    gemmCycles += total;
    arrayCycles += engine + 2;
    now += total;
  }

  /** Counter values of the cycle counters (the others are left at zero). */
  public void fill(long[] counters) {
    counters[Counter.CYCLES.ordinal()] = now;
    counters[Counter.FETCH_CYCLES.ordinal()] = fetchCycles;
    counters[Counter.DMA_CYCLES.ordinal()] = dmaCycles;
    counters[Counter.GEMM_CYCLES.ordinal()] = gemmCycles;
    counters[Counter.ARRAY_CYCLES.ordinal()] = arrayCycles;
    counters[Counter.MEM_STALL_CYCLES.ordinal()] = stallCycles;
  }

  /**
   * Cycles of the dense GEMM engine from the first cycle after its start until done: over the
   * passes (N tile, M chunk of mTile, K tile) {@code P_0 = 0, S_0 = 1, P_{j+1} = max(P_j + rows, S_j + gap)},
   * {@code S_{j+1} = max(S_j + Mc_j, P_{j+1} + 1)}, {@code gap = max(cols − 1, 1)}; then
   * {@code S_last + Mc_last − 1 + rows + cols}.
   */
  public static long engineCycles(int rows, int cols, int mTile, int m, int k, int n) {
    long gap = Math.max(cols - 1, 1);
    long nTiles = (n + (long) cols - 1) / cols;
    long kTiles = (k + (long) rows - 1) / rows;
    long load = 0;
    long stream = 1;
    long lastChunk = 0;
    boolean first = true;
    for (long nt = 0; nt < nTiles; nt++) {
      for (long m0 = 0; m0 < m; m0 += mTile) {
        long chunk = Math.min(mTile, m - m0);
        for (long kt = 0; kt < kTiles; kt++) {
          if (!first) {
            long nextLoad = Math.max(load + rows, stream + gap);
            stream = Math.max(stream + lastChunk, nextLoad + 1);
            load = nextLoad;
          }
          first = false;
          lastChunk = chunk;
        }
      }
    }
    return stream + lastChunk - 1 + rows + cols;
  }
}
