package org.llmnpu.rtl.mac;

import java.math.BigInteger;
import org.llmnpu.hdl.sim.Simulator;

/**
 * Drives a simulated {@link GemmEngine}: writes X and W into its buffers in the engine's layout,
 * starts it, waits for {@code done} and reads Y and the counters back. Pokes are batched; only
 * the wait and the reads are round trips. One driver runs any number of GEMMs on one model.
 */
public final class GemmEngineDriver {
  /** One GEMM's outputs: Y, the sticky overflow flag, the counters and the cycles to done. */
  public record Result(int[][] y, boolean overflow, long psumWritebacks, long psumReadbacks, long cycles) {
  }

  private final Simulator sim;
  private final GemmEngineConfig config;

  public GemmEngineDriver(Simulator sim, GemmEngineConfig config) {
    this.sim = sim;
    this.config = config;
  }

  /** The engine parameters this driver was built for. */
  public GemmEngineConfig config() {
    return config;
  }

  /** Dense GEMM {@code x} (M×K) · {@code w} (K×N); requires a dense engine. */
  public Result runDense(byte[][] x, byte[][] w) {
    writeDense(x, w);
    return start(x.length, w.length, w[0].length);
  }

  /**
   * As {@link #runDense} on an engine built {@link GemmEngine#withWeightStream}, whose scoreboard says N tile
   * {@code nt} is in from engine cycle {@code tileReady[nt]} (non-decreasing; cycle 0 = the first after start) and
   * none of a later tile's K tiles before: the loader may start that tile's passes from then on.
   */
  public Result runDenseStreamed(byte[][] x, byte[][] w, long[] tileReady) {
    return runDenseStreamed(x, w, tileReady, false);
  }

  /** As {@link #runDenseStreamed(byte[][], byte[][], long[])}, the passes in N-tile pairs with {@code pairOrder}. */
  public Result runDenseStreamed(byte[][] x, byte[][] w, long[] tileReady, boolean pairOrder) {
    writeDense(x, w);
    return runStreamed(x, w, tileReady, pairOrder, false);
  }

  /**
   * As {@link #runDenseStreamed(byte[][], byte[][], long[], boolean)}, with X copied into the engine while it runs, as
   * the NPU's X copy of a streamed GEMM does: the X buffer first holds other (random) words; X line {@code i}
   * ({@code i = kt·M + m}: K tile by K tile, rows in order) is written in the {@code i}-th cycle from the start
   * (line 0 together with {@code start}), and {@code xKTiles} shows the K tiles whose M lines are all written from
   * the cycle after their last line: K tile kt is in from engine cycle {@code (kt + 1)·M − 1}.
   */
  public Result runDenseStreamedWithX(byte[][] x, byte[][] w, long[] tileReady, boolean pairOrder, long seed) {
    writeDense(x, w);
    java.util.Random rnd = new java.util.Random(seed);
    byte[][] other = new byte[x.length][x[0].length];
    for (byte[] row : other) {
      rnd.nextBytes(row);
    }
    loadActivations(other, w.length);
    return runStreamed(x, w, tileReady, pairOrder, true);
  }

  /**
   * Starts a streamed GEMM whose N tile {@code nt} is in from engine cycle {@code tileReady[nt]}; {@code xBeside}: X
   * goes into the buffer K tile by K tile from the start ({@link #runDenseStreamedWithX}), else it is in already.
   */
  private Result runStreamed(byte[][] x, byte[][] w, long[] tileReady, boolean pairOrder, boolean xBeside) {
    sim.poke("wPairOrder", pairOrder ? 1 : 0);
    int m = x.length;
    int k = w.length;
    int n = w[0].length;
    int kPerTile = config.array().kPerTile();
    int kTiles = (k + kPerTile - 1) / kPerTile;
    long xLines = xBeside ? (long) m * kTiles : 0;
    long allIn = (1L << (config.kTileBits() + 1)) - 1;
    sim.poke("wFullTiles", 0);
    sim.poke("wPartialEnd", 0);
    sim.poke("wKTiles", 0);
    sim.poke("m", m);
    sim.poke("k", k);
    sim.poke("n", n);
    sim.poke("start", 1);
    long bound = 8L * GemmCycleModel.cycles(config.array(), m, k, n) + 1000 + tileReady[tileReady.length - 1]
        + xLines;
    // cycle i from the start (i = 0: start); engine cycle t = i − 1
    for (long i = 0; i == 0 || sim.peekLong("done") == 0; i++) {
      if (i > bound) {
        throw new IllegalStateException("no done after " + bound + " cycles");
      }
      if (i < xLines) {
        int kt = (int) (i / m);
        int row = (int) (i % m);
        sim.poke("xWrite", 1);
        sim.poke("xAddress", ((long) row << config.kTileBits()) | kt);
        sim.poke("xData", activationWord(x[row], kt, k));
      } else {
        sim.poke("xWrite", 0);
      }
      sim.poke("xKTiles", i < xLines ? i / m : allIn);
      int full = 0;
      while (i > 0 && full < tileReady.length && tileReady[full] <= i - 1) {
        full++;
      }
      sim.poke("wFullTiles", full);
      sim.step();
      sim.poke("start", 0);
    }
    sim.poke("xWrite", 0);
    return result(m, n, sim.peekLong("cycles"));
  }

  private void writeDense(byte[][] x, byte[][] w) {
    requireSparsity(WeightSparsity.NONE);
    int k = w.length;
    int n = w[0].length;
    checkShape(x, k, n);
    MacArrayConfig a = config.array();
    loadActivations(x, k);
    for (int nt = 0; nt * a.cols() < n; nt++) {
      for (int kt = 0; kt * a.rows() < k; kt++) {
        for (int r = 0; r < a.rows(); r++) {
          BigInteger word = BigInteger.ZERO;
          int kk = kt * a.rows() + r;
          for (int c = 0; c < a.cols(); c++) {
            int nn = nt * a.cols() + c;
            long v = kk < k && nn < n ? w[kk][nn] & 0xFF : 0;
            word = word.or(BigInteger.valueOf(v).shiftLeft(8 * c));
          }
          writeWeightWord(nt, kt, r, word);
        }
      }
    }
  }

  /**
   * N:M GEMM (2:4 or 4:8, the engine's mode) with weights in the compressed layout of
   * {@code org.llmnpu.numerics.sparse.NmCompressedMatrix} for Wᵀ (N rows × K' = K rounded up to a
   * multiple of the group size G, {@code groups = K' / G}, E kept entries per group):
   * {@code values[(n·groups + g)·E + j]} and {@code indices[n][g·E + j]} (position 0..G−1 in
   * group g). PE row r of K tile t holds entry {@code r mod E} of group {@code t·rows/E + r/E}.
   * Requires a sparse engine.
   */
  public Result runSparse(byte[][] x, int k, int n, byte[] values, int[][] indices) {
    WeightSparsity s = config.array().sparsity();
    if (!s.sparse()) {
      throw new IllegalArgumentException("this engine is built for sparsity none, not an N:M mode");
    }
    checkShape(x, k, n);
    MacArrayConfig a = config.array();
    int kept = s.kept();
    int groups = (k + s.group() - 1) / s.group();
    if (values.length != n * groups * kept || indices.length != n) {
      throw new IllegalArgumentException("compressed weights must hold " + n + " rows of " + groups
          + " groups of " + kept + " entries, got " + values.length + " values and " + indices.length + " index rows");
    }
    loadActivations(x, k);
    int groupsPerTile = a.rows() / kept;
    int entryBits = a.weightEntryBits();
    for (int nt = 0; nt * a.cols() < n; nt++) {
      for (int kt = 0; kt * a.kPerTile() < k; kt++) {
        for (int r = 0; r < a.rows(); r++) {
          BigInteger word = BigInteger.ZERO;
          int g = kt * groupsPerTile + r / kept;
          for (int c = 0; c < a.cols(); c++) {
            int nn = nt * a.cols() + c;
            long entry = 0;
            if (g < groups && nn < n) {
              int at = g * kept + r % kept;
              entry = (values[nn * groups * kept + at] & 0xFF) | ((long) indices[nn][at] << 8);
            }
            word = word.or(BigInteger.valueOf(entry).shiftLeft(entryBits * c));
          }
          writeWeightWord(nt, kt, r, word);
        }
      }
    }
    return start(x.length, k, n);
  }

  private void requireSparsity(WeightSparsity s) {
    if (config.array().sparsity() != s) {
      throw new IllegalArgumentException("this engine is built for sparsity " + config.array().sparsity().cliName()
          + ", not " + s.cliName());
    }
  }

  private void checkShape(byte[][] x, int k, int n) {
    int m = x.length;
    check("M", m, config.maxM());
    check("K", k, config.maxK());
    check("N", n, config.maxN());
    for (byte[] row : x) {
      if (row.length != k) {
        throw new IllegalArgumentException("every X row must hold K = " + k + " activations, got " + row.length);
      }
    }
  }

  private static void check(String what, int value, int max) {
    if (value < 1 || value > max) {
      throw new IllegalArgumentException(what + " must be in 1.." + max + " (the engine's buffers), got " + value);
    }
  }

  private void loadActivations(byte[][] x, int k) {
    int kPerTile = config.array().kPerTile();
    sim.poke("xWrite", 1);
    for (int mm = 0; mm < x.length; mm++) {
      for (int kt = 0; kt * kPerTile < k; kt++) {
        sim.poke("xAddress", ((long) mm << config.kTileBits()) | kt);
        sim.poke("xData", activationWord(x[mm], kt, k));
        sim.step();
      }
    }
    sim.poke("xWrite", 0);
  }

  /** The X buffer word of K tile {@code kt} of an activation row: lane l = {@code row[kt·kPerTile + l]}. */
  private BigInteger activationWord(byte[] row, int kt, int k) {
    int kPerTile = config.array().kPerTile();
    BigInteger word = BigInteger.ZERO;
    for (int lane = 0; lane < kPerTile; lane++) {
      int kk = kt * kPerTile + lane;
      if (kk < k) {
        word = word.or(BigInteger.valueOf(row[kk] & 0xFF).shiftLeft(8 * lane));
      }
    }
    return word;
  }

  private void writeWeightWord(int nt, int kt, int row, BigInteger word) {
    long address = (((long) nt << config.kTileBits()) | kt) << config.rowBits() | row;
    sim.poke("wWrite", 1);
    sim.poke("wAddress", address);
    sim.poke("wData", word);
    sim.step();
    sim.poke("wWrite", 0);
  }

  private Result start(int m, int k, int n) {
    sim.poke("m", m);
    sim.poke("k", k);
    sim.poke("n", n);
    sim.poke("start", 1);
    sim.step();
    sim.poke("start", 0);
    long bound = 8L * GemmCycleModel.cycles(config.array(), m, k, n) + 1000;
    long waited = sim.runUntil("done", 1, bound);
    long cycles = sim.peekLong("cycles");
    if (cycles != waited) {
      throw new IllegalStateException("cycle counter " + cycles + " disagrees with the " + waited + " cycles waited");
    }
    return result(m, n, cycles);
  }

  private Result result(int m, int n, long cycles) {
    int accWidth = config.array().accWidth();
    int cols = config.array().cols();
    int[][] y = new int[m][n];
    for (int nt = 0; nt * cols < n; nt++) {
      for (int mm = 0; mm < m; mm++) {
        sim.poke("yAddress", ((long) mm << config.nTileBits()) | nt);
        BigInteger row = sim.peek("yData");
        for (int c = 0; c < cols && nt * cols + c < n; c++) {
          long bits = row.shiftRight(accWidth * c).longValue() & ((1L << accWidth) - 1);
          y[mm][nt * cols + c] = (int) (bits << (64 - accWidth) >> (64 - accWidth));
        }
      }
    }
    return new Result(y, sim.peekLong("overflow") == 1, sim.peekLong("psumWritebacks"),
        sim.peekLong("psumReadbacks"), cycles);
  }
}
