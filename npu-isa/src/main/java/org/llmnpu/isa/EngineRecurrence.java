package org.llmnpu.isa;

/**
 * The systolic GEMM engine's cycle recurrence ({@code npu-rtl} {@code GemmEngine}), over its list of passes (N tile,
 * M chunk of {@code mTile}, K tile): pass j's loader puts its W tile into the shadow registers one PE row a cycle
 * from cycle {@code P_j}, its streamer presents its {@code Mc_j} activation rows from cycle {@code S_j}:
 * <pre>
 *   P_0 = max(0, R_0),  S_0 = P_0 + 1
 *   P_{j+1} = max(P_j + rows,  S_j + gap,  R_{j+1})     weight bus busy; shadow free; W tile in
 *   S_{j+1} = max(S_j + Mc_j,  P_{j+1} + 1)             stream busy; row 0 of the next tile loaded
 *   engine  = S_last + Mc_last − 1 + rows + cols         last beat, fill (rows) and drain (cols)
 * </pre>
 * {@code gap = max(cols − 1, 1)}; {@code R_j} = the first engine cycle in which pass j's W tile is in the buffer
 * ({@link PassReady}: 0 for a W copied before the start, later for a streamed W).
 *
 * <p><b>Pass order.</b> N tile (outer), M chunk, K tile (inner), so an output's K tiles are consecutive. With
 * {@code pairs} (a GEMM whose streamed W beat column holds two N tiles, {@link #pairOrder}) the engine takes the
 * N tiles in pairs {@code (2c, 2c + 1)}: pair (outer), M chunk, K tile, N tile of the pair (inner), so both tiles'
 * passes of a K tile run as soon as that K tile's beats of the column are in; each pass is then its own
 * accumulation group (its partial sums go to the result memory at {@code (m, nTile)} and the pair's next pass of
 * that tile reads them back, {@link #icAccumDepth}).
 */
public final class EngineRecurrence {
  private EngineRecurrence() {
  }

  /** The first engine cycle in which the loader may start the pass of N tile {@code nt}, K tile {@code kt}. */
  @FunctionalInterface
  public interface PassReady {
    long at(long nt, long kt);
  }

  /**
   * Whether the engine runs a GEMM's passes in N-tile pairs: a streamed INT4 W ({@code wInt4} 1 or 2), whose beat
   * column holds N tiles {@code 2c} and {@code 2c + 1}, of more than one N tile ({@code n > rows}).
   */
  public static boolean pairOrder(MachineParams p, boolean int4Stream, long n) {
    return int4Stream && n > p.rows();
  }

  /** {@link #pairOrder} of a GEMM command. */
  public static boolean pairOrder(MachineParams p, Command.Gemm g) {
    return pairOrder(p, g.streamsWeights() && g.int4Weights(), g.n());
  }

  /**
   * K tiles a GEMM folds before a partial-sum write-back: the machine's {@code icAccumDepth} (0 = all), or 1 in
   * pair order (the accumulator bank holds one N tile's chunk; the pair's other tile runs in between).
   */
  public static int icAccumDepth(MachineParams p, boolean pairs) {
    return pairs ? 1 : p.icAccumDepth();
  }

  /** Engine cycles of a dense GEMM whose W is in at the start: the recurrence over {@code ceil(K / rows)} K tiles. */
  public static long engineCycles(int rows, int cols, int mTile, int m, int k, int n) {
    return cycles(rows, cols, mTile, m, (k + (long) rows - 1) / rows, n, (nt, kt) -> 0, false);
  }

  /** The recurrence over {@code kTiles} K tiles (a 2:4 array folds {@code 2·rows} of K into one), W in at start. */
  public static long cycles(int rows, int cols, int mTile, int m, long kTiles, int n) {
    return cycles(rows, cols, mTile, m, kTiles, n, (nt, kt) -> 0, false);
  }

  /**
   * The recurrence with pass (nt, kt)'s W tile in from engine cycle {@code ready.at(nt, kt)}, passes in the plain
   * order or ({@code pairs}) in N-tile pairs; with every {@code R_j ≤ 0} and the plain order the cycles of a W
   * copied before the start.
   */
  public static long cycles(int rows, int cols, int mTile, int m, long kTiles, int n, PassReady ready,
                            boolean pairs) {
    long gap = Math.max(cols - 1, 1);
    long nTiles = (n + (long) cols - 1) / cols;
    long tilesPerGroup = pairs ? 2 : 1;
    long load = 0;
    long stream = 1;
    long lastChunk = 0;
    boolean first = true;
    for (long nt0 = 0; nt0 < nTiles; nt0 += tilesPerGroup) {
      long ntEnd = Math.min(nTiles, nt0 + tilesPerGroup);
      for (long m0 = 0; m0 < m; m0 += mTile) {
        long chunk = Math.min(mTile, m - m0);
        for (long kt = 0; kt < kTiles; kt++) {
          for (long nt = nt0; nt < ntEnd; nt++) {
            long earliest = ready.at(nt, kt);
            if (first) {
              load = Math.max(0, earliest);
              stream = load + 1;
            } else {
              long nextLoad = Math.max(Math.max(load + rows, stream + gap), earliest);
              stream = Math.max(stream + lastChunk, nextLoad + 1);
              load = nextLoad;
            }
            first = false;
            lastChunk = chunk;
          }
        }
      }
    }
    return stream + lastChunk - 1 + rows + cols;
  }
}
