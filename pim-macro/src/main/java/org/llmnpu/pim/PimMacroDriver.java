package org.llmnpu.pim;

import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.sim.SimulationException;
import org.llmnpu.hdl.sim.Simulator;

/**
 * Runs a whole GEMM on a simulated {@link PimMacro}, cycle by cycle through its ports, in the
 * command order of {@link PimCycleModel}: per N tile, per M chunk of {@code mTile} vectors, per row
 * group — write the weight tile row by row (PRE: then the column exponents), stream the chunk's
 * input vectors. Row groups are folded {@code icAccumDepth} at a time: the first group of a fold
 * gets its base from the driver's psum memory (a read-back, or 0 for the first fold), the last one
 * writes its psums back (or delivers the final results). Ragged K pads inputs and weights with 0
 * (INT 0, FP +0); ragged N leaves columns unused; ragged M makes a short last chunk.
 *
 * <p>With two weight banks the next tile is written while the current one computes (its first
 * vector carries {@code inSwap}). The driver waits for {@code wrReady}/{@code inReady} and
 * follows {@code outValid}, so the cycle
 * count it reports is the RTL's own: from the first write cycle to the cycle the last result
 * leaves, inclusive.
 */
public final class PimMacroDriver {
  private final Simulator sim;
  private final PimMacroConfig c;

  /**
   * Outputs (signed {@code accWidth}-bit psums, M×N), cycles, psum traffic in elements, sticky flags.
   */
  public record Run(BigInteger[][] y, long cycles, long psumWritebacks, long psumReadbacks, boolean overflow,
                    boolean special) {
  }

  public PimMacroDriver(Simulator sim, PimMacroConfig config) {
    this.sim = sim;
    this.c = config;
  }

  private record Op(boolean exp, int row, BigInteger data) {
  }

  private record Vec(int m, int n0, int nc, int bank, boolean first, boolean last, boolean fin, boolean readback,
                     BigInteger data, BigInteger scales) {
  }

  /** One weight tile: its write commands, then the input vectors that use it. */
  private record Tile(List<Op> writes, List<Vec> vectors) {
  }

  /**
   * Runs {@code x} (M×K: INT values or FP8 codes) against {@code w} (K×N, see
   * {@link PimWeightTiles}). The macro must be freshly reset (sticky flags clear).
   */
  public Run gemm(long[][] x, PimWeightTiles w, int k, int n) {
    return gemm(x, null, w, k, n);
  }

  /**
   * As {@link #gemm(long[][], PimWeightTiles, int, int)} with MX inputs: {@code xScales} (M ×
   * ceil(K/32) E8M0 codes) go on {@code inScale} with each vector (blocks of a row group past K get
   * scale 0, i.e. the smallest exponent, so they cannot win the pre-alignment maximum).
   */
  public Run gemm(long[][] x, int[][] xScales, PimWeightTiles w, int k, int n) {
    if (c.scaleBlocks() > 0 && xScales == null) {
      throw new IllegalArgumentException(c.input().cliName() + " inputs need their E8M0 scales");
    }
    int m = x.length;
    int rows = c.rows();
    int cols = c.cols();
    long kTiles = PimCycleModel.ceilDiv(k, rows);
    long perFold = PimCycleModel.groupsPerFold(c, k);
    BigInteger[][] y = new BigInteger[m][n];
    BigInteger[][] psums = new BigInteger[m][n];
    long[] writebacks = {0};
    long[] readbacks = {0};
    long start = sim.cycle();
    List<Tile> tiles = new ArrayList<>();
    for (int n0 = 0; n0 < n; n0 += cols) {
      int nc = Math.min(cols, n - n0);
      for (int m0 = 0; m0 < m; m0 += c.mTile()) {
        int mc = Math.min(c.mTile(), m - m0);
        for (int t = 0; t < kTiles; t++) {
          List<Op> writes = new ArrayList<>();
          for (int r = 0; r < rows; r++) {
            BigInteger word = BigInteger.ZERO;
            for (int j = nc - 1; j >= 0; j--) {
              word = word.shiftLeft(c.cellBits()).or(bits(w.cell(t, r, n0 + j), c.cellBits()));
            }
            writes.add(new Op(false, r, word));
          }
          if (c.alignment() == PimMacroConfig.Alignment.PRE) {
            int e = c.precision().exponentBits;
            BigInteger word = BigInteger.ZERO;
            for (int j = cols - 1; j >= 0; j--) {
              word = word.shiftLeft(e).or(BigInteger.valueOf(j < nc ? w.columnExponent(t, n0 + j) : 1));
            }
            writes.add(new Op(true, 0, word));
          }
          boolean first = t % perFold == 0;
          boolean last = (t + 1) % perFold == 0 || t == kTiles - 1;
          List<Vec> vectors = new ArrayList<>();
          for (int i = 0; i < mc; i++) {
            vectors.add(new Vec(m0 + i, n0, nc, i, first, last, t == kTiles - 1, first && t > 0,
                inputWord(x[m0 + i], t), xScales == null ? null : scaleWord(xScales[m0 + i], t, k)));
          }
          tiles.add(new Tile(writes, vectors));
        }
      }
    }
    long lastOut = execute(tiles, y, psums, writebacks, readbacks);
    boolean overflow = sim.peekLong("overflow") != 0;
    boolean special = sim.peekLong("special") != 0;
    return new Run(y, lastOut - start + 1, writebacks[0], readbacks[0], overflow, special);
  }

  /**
   * Issues at most one weight write and one input vector per cycle. One bank: a tile's writes
   * start when the previous tile's vectors are all issued and the array is idle ({@code wrReady}).
   * Two banks: they start once the previous tile's first vector has swapped the banks. A tile's
   * vectors start when its last write is issued (the same cycle is fine) and {@code inReady}.
   */
  private long execute(List<Tile> tiles, BigInteger[][] y, BigInteger[][] psums, long[] writebacks,
                       long[] readbacks) {
    ArrayDeque<Vec> inFlight = new ArrayDeque<>();
    int wTile = 0;
    int wIdx = 0;
    int vTile = 0;
    int vIdx = 0;
    long lastOut = sim.cycle();
    long ops = tiles.stream().mapToLong(t -> t.writes.size() + t.vectors.size()).sum();
    long limit = sim.cycle() + 4L * ops * (c.cyclesPerMvm() + 2) + 100;
    boolean pre = c.alignment() == PimMacroConfig.Alignment.PRE;
    boolean db = c.doubleBuffered();
    while (vTile < tiles.size() || !inFlight.isEmpty()) {
      if (sim.cycle() > limit) {
        throw new SimulationException("pim-macro driver: no progress after " + limit + " cycles (tile "
            + vTile + " of " + tiles.size() + ", " + inFlight.size() + " vectors in flight)");
      }
      if (sim.peekLong("outValid") != 0) {
        Vec v = inFlight.poll();
        if (v == null) {
          throw new SimulationException("pim-macro: outValid without an input vector in flight at cycle " + sim.cycle());
        }
        if (v.first) {
          sim.poke("psumIn", v.readback ? readbackWord(psums[v.m], v.n0, v.nc, readbacks) : BigInteger.ZERO);
        }
        if (v.last) {
          BigInteger word = sim.peek("outData");
          for (int j = 0; j < v.nc; j++) {
            BigInteger e = signed(word.shiftRight(j * c.accWidth()), c.accWidth());
            if (v.fin) {
              y[v.m][v.n0 + j] = e;
            } else {
              psums[v.m][v.n0 + j] = e;
              writebacks[0]++;
            }
          }
          lastOut = sim.cycle();
        }
      }
      sim.poke("wrEn", 0);
      sim.poke("inValid", 0);
      if (pre) {
        sim.poke("expWrEn", 0);
      }
      boolean previousSwapped = wTile == 0 || vTile > wTile - 1 || (vTile == wTile - 1 && vIdx > 0);
      boolean writeTurn = db ? wTile <= vTile + 1 && previousSwapped : wTile == vTile;
      if (wTile < tiles.size() && writeTurn && sim.peekLong("wrReady") != 0) {
        Op op = tiles.get(wTile).writes.get(wIdx++);
        if (op.exp) {
          sim.poke("expWrEn", 1);
          sim.poke("expData", op.data);
        } else {
          sim.poke("wrEn", 1);
          sim.poke("wrRow", op.row);
          sim.poke("wrData", op.data);
        }
        if (wIdx == tiles.get(wTile).writes.size()) {
          wTile++;
          wIdx = 0;
        }
      }
      if (vTile < tiles.size() && wTile > vTile && sim.peekLong("inReady") != 0) {
        issue(tiles.get(vTile).vectors.get(vIdx), inFlight, db && vIdx == 0);
        vIdx++;
        if (vIdx == tiles.get(vTile).vectors.size()) {
          vTile++;
          vIdx = 0;
        }
      }
      sim.step(1);
    }
    return lastOut;
  }

  private void issue(Vec v, ArrayDeque<Vec> inFlight, boolean swap) {
    sim.poke("inValid", 1);
    sim.poke("inData", v.data);
    if (v.scales != null) {
      sim.poke("inScale", v.scales);
    }
    sim.poke("inBank", v.bank);
    sim.poke("inFirst", v.first ? 1 : 0);
    sim.poke("inLast", v.last ? 1 : 0);
    if (c.doubleBuffered()) {
      sim.poke("inSwap", swap ? 1 : 0);
    }
    inFlight.add(v);
  }

  private BigInteger readbackWord(BigInteger[] row, int n0, int nc, long[] readbacks) {
    BigInteger word = BigInteger.ZERO;
    for (int j = nc - 1; j >= 0; j--) {
      word = word.shiftLeft(c.accWidth()).or(bits(row[n0 + j], c.accWidth()));
      readbacks[0]++;
    }
    return word;
  }

  private BigInteger inputWord(long[] xRow, int tile) {
    BigInteger word = BigInteger.ZERO;
    for (int r = c.rows() - 1; r >= 0; r--) {
      int kk = tile * c.rows() + r;
      long v = kk < xRow.length ? xRow[kk] : 0;
      word = word.shiftLeft(c.inputBits()).or(bits(v, c.inputBits()));
    }
    return word;
  }

  private BigInteger scaleWord(int[] scales, int tile, int k) {
    BigInteger word = BigInteger.ZERO;
    for (int b = c.scaleBlocks() - 1; b >= 0; b--) {
      int kk = tile * c.rows() + 32 * b;
      word = word.shiftLeft(8).or(BigInteger.valueOf(kk < k ? scales[kk / 32] : 0));
    }
    return word;
  }

  private static BigInteger bits(long v, int width) {
    return BigInteger.valueOf(v).and(BigInteger.ONE.shiftLeft(width).subtract(BigInteger.ONE));
  }

  private static BigInteger bits(BigInteger v, int width) {
    return v.and(BigInteger.ONE.shiftLeft(width).subtract(BigInteger.ONE));
  }

  private static BigInteger signed(BigInteger word, int width) {
    BigInteger v = bits(word, width);
    return v.testBit(width - 1) ? v.subtract(BigInteger.ONE.shiftLeft(width)) : v;
  }
}
