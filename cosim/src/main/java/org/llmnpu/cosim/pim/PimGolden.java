package org.llmnpu.cosim.pim;

import java.math.BigInteger;
import org.llmnpu.numerics.fp.FloatFormat;
import org.llmnpu.numerics.gemm.TiledGemm;
import org.llmnpu.numerics.gemm.TiledGemmConfig;
import org.llmnpu.numerics.pim.PimFpConfig;
import org.llmnpu.numerics.pim.PimFpGemm;
import org.llmnpu.numerics.pim.PimInputFormat;
import org.llmnpu.numerics.pim.PimIntGemm;
import org.llmnpu.numerics.pim.PimPrealign;
import org.llmnpu.pim.PimMacroConfig;
import org.llmnpu.pim.PimWeightTiles;

/**
 * The bridge between a {@link PimMacroConfig} and the golden models of {@code numerics.pim}: the
 * expected psums of a GEMM, and the weights as the macro stores them (PRE: pre-aligned per row
 * group and column by {@link PimPrealign}, the same function the golden model uses).
 */
public final class PimGolden {
  private PimGolden() {
  }

  /**
   * Expected accumulators (M×N, units of {@code 2^accExponent}; INT: the psums), their values,
   * sticky flags and traffic.
   */
  public record Expected(BigInteger[][] acc, double[][] values, int accExponent, boolean overflow, boolean special,
                         long psumWritebacks) {
  }

  /** The numerics FP config equal to the macro's FP mode. */
  public static PimFpConfig fpConfig(PimMacroConfig c) {
    int depth = c.foldsAllRowGroups() ? Integer.MAX_VALUE : c.icAccumDepth();
    return new PimFpConfig(PimMode.format(c), inputFormat(c), PimMode.alignment(c), c.alignBits(), c.rows(), depth);
  }

  /** The numerics input format of an FP macro config. */
  public static PimInputFormat inputFormat(PimMacroConfig c) {
    FloatFormat f = PimMode.format(c);
    return switch (c.input()) {
      case FP8 -> PimInputFormat.fp8(f);
      case BF16 -> PimInputFormat.BF16;
      case MXFP8 -> PimInputFormat.mxfp8(f);
      case MXINT8 -> PimInputFormat.MXINT8;
    };
  }

  /** Runs the golden model of the macro's mode on {@code x} (M×K) and {@code w} (K×N). */
  public static Expected run(PimMacroConfig c, long[][] x, long[][] w) {
    return run(c, x, null, w);
  }

  /** As {@link #run(PimMacroConfig, long[][], long[][])} with the E8M0 scales of MX inputs. */
  public static Expected run(PimMacroConfig c, long[][] x, int[][] xScales, long[][] w) {
    int m = x.length;
    int n = w.length == 0 ? 0 : w[0].length;
    if (!c.precision().isFp()) {
      int depth = c.foldsAllRowGroups() ? TiledGemmConfig.ALL_K_TILES : c.icAccumDepth();
      TiledGemm.Result r = PimIntGemm.run(c.rows(), c.accWidth(), depth, c.inBits(), c.precision().codeBits,
          toBytes(x), toBytes(w));
      BigInteger[][] acc = new BigInteger[m][n];
      double[][] v = new double[m][n];
      for (int i = 0; i < m; i++) {
        for (int j = 0; j < n; j++) {
          acc[i][j] = BigInteger.valueOf(r.y()[i][j]);
          v[i][j] = r.y()[i][j];
        }
      }
      return new Expected(acc, v, 0, r.overflow(), false, r.psumWritebacks());
    }
    PimFpConfig fc = fpConfig(c);
    if (fc.accWidth() != c.accWidth()) {
      throw new IllegalStateException("accumulator width of the RTL (" + c.accWidth()
          + ") differs from the golden model's (" + fc.accWidth() + ")");
    }
    PimFpGemm.Result r = PimFpGemm.run(fc, toInts(x), xScales, toInts(w));
    double[][] v = new double[m][n];
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        v[i][j] = r.value(i, j);
      }
    }
    return new Expected(r.acc(), v, r.accExponent(), r.overflow(), r.special(), r.psumWritebacks());
  }

  /** FP64 reference of the decoded FP8 codes (FP modes) or the exact INT product (as doubles). */
  public static double[][] reference(PimMacroConfig c, long[][] x, long[][] w) {
    return reference(c, x, null, w);
  }

  /** FP64 reference with the E8M0 scales of MX inputs. */
  public static double[][] reference(PimMacroConfig c, long[][] x, int[][] xScales, long[][] w) {
    if (c.precision().isFp()) {
      return PimFpGemm.reference(inputFormat(c), PimMode.format(c), toInts(x), xScales, toInts(w));
    }
    int m = x.length;
    int k = w.length;
    int n = k == 0 ? 0 : w[0].length;
    double[][] y = new double[m][n];
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        double s = 0;
        for (int kk = 0; kk < k; kk++) {
          s += (double) x[i][kk] * w[kk][j];
        }
        y[i][j] = s;
      }
    }
    return y;
  }

  /** The weights as the macro stores them: plain values/codes, or PRE-aligned integers and exponents. */
  public static PimWeightTiles tiles(PimMacroConfig c, long[][] w) {
    if (c.alignment() != PimMacroConfig.Alignment.PRE) {
      return PimWeightTiles.plain(w, c.rows());
    }
    FloatFormat f = PimMode.format(c);
    int k = w.length;
    int n = k == 0 ? 0 : w[0].length;
    int tiles = Math.max(1, (k + c.rows() - 1) / c.rows());
    PimPrealign.Aligned[][] cols = new PimPrealign.Aligned[tiles][n];
    for (int t = 0; t < tiles; t++) {
      int k0 = t * c.rows();
      int k1 = Math.min(k, k0 + c.rows());
      for (int j = 0; j < n; j++) {
        int[] col = new int[k1 - k0];
        for (int r = k0; r < k1; r++) {
          col[r - k0] = (int) w[r][j];
        }
        cols[t][j] = PimPrealign.align(f, col, c.alignBits());
      }
    }
    return new PimWeightTiles() {
      @Override
      public long cell(int t, int r, int j) {
        if (j >= n) {
          return 0;
        }
        int[] ints = cols[t][j].ints();
        return r < ints.length ? ints[r] : 0;
      }

      @Override
      public int columnExponent(int t, int j) {
        return j < n ? cols[t][j].maxBiasedExponent() : 1;
      }
    };
  }

  /** Whether pre-aligned weights held a NaN/Inf code (the loader zeroes it and flags it). */
  public static boolean weightSpecial(PimMacroConfig c, long[][] w) {
    if (!c.precision().isFp()) {
      return false;
    }
    FloatFormat f = PimMode.format(c);
    for (long[] row : w) {
      for (long code : row) {
        if (f.isNaN((int) code) || f.isInfinite((int) code)) {
          return true;
        }
      }
    }
    return false;
  }

  static byte[][] toBytes(long[][] a) {
    byte[][] b = new byte[a.length][];
    for (int i = 0; i < a.length; i++) {
      b[i] = new byte[a[i].length];
      for (int j = 0; j < a[i].length; j++) {
        if (a[i][j] < Byte.MIN_VALUE || a[i][j] > Byte.MAX_VALUE) {
          throw new IllegalArgumentException("INT element [" + i + "][" + j + "] = " + a[i][j] + " is not an INT8 value");
        }
        b[i][j] = (byte) a[i][j];
      }
    }
    return b;
  }

  static int[][] toInts(long[][] a) {
    int[][] b = new int[a.length][];
    for (int i = 0; i < a.length; i++) {
      b[i] = new int[a[i].length];
      for (int j = 0; j < a[i].length; j++) {
        b[i][j] = (int) a[i][j];
      }
    }
    return b;
  }
}
