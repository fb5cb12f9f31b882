package org.llmnpu.cosim.pim;

import java.math.BigInteger;
import java.util.Random;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.fp.FloatFormat;
import org.llmnpu.numerics.pim.PimInputFormat;
import org.llmnpu.pim.PimCycleModel;
import org.llmnpu.pim.PimMacro;
import org.llmnpu.pim.PimMacroConfig;
import org.llmnpu.pim.PimMacroDriver;
import org.llmnpu.verilator.SimOptions;
import org.llmnpu.verilator.Simulators;

/**
 * One co-simulated GEMM on the PiM macro: the {@link PimMacro} RTL in Verilator driven by
 * {@link PimMacroDriver}, against the golden model of its mode ({@link PimGolden}): bit-exactness of
 * every psum and of the sticky flags, RTL cycles against {@link PimCycleModel}, psum traffic, and
 * for FP modes the error of the result against the FP64 product of the decoded codes.
 */
public final class PimCosim {
  private PimCosim() {
  }

  /**
   * What a run shows. {@code snrDb} and {@code maxRelError} compare the golden result (equal to
   * the RTL's when bit-exact) with FP64; {@code maxRelError} is relative to the largest |reference|.
   */
  public record Outcome(boolean bitExact, long mismatches, long rtlCycles, long modelCycles, long psumWritebacks,
                        long psumReadbacks, long modelWritebacks, boolean overflow, boolean special, double snrDb,
                        double maxRelError, double utilization) {
    public boolean cyclesMatch() {
      return rtlCycles == modelCycles;
    }
  }

  /** Random operands from a seed (see {@link #randomOperands}), then {@link #run}. */
  public static Outcome random(PimMacroConfig c, int m, int k, int n, long seed, SimOptions options) {
    Random r = new Random(seed);
    long[][] x = randomOperands(c, m, k, r, false);
    long[][] w = randomOperands(c, k, n, r, true);
    return run(c, x, randomScales(c, m, k, r), w, options);
  }

  /** Random E8M0 scales (MX inputs: every code but NaN, M × ceil(K/32)), else null. */
  public static int[][] randomScales(PimMacroConfig c, int m, int k, Random r) {
    if (!c.input().blockScaled()) {
      return null;
    }
    int[][] s = new int[m][(k + 31) / 32];
    for (int[] row : s) {
      for (int b = 0; b < row.length; b++) {
        row[b] = r.nextInt(255);
      }
    }
    return s;
  }

  /**
   * A random {@code a × b} operand: INT values uniform over the signed range of {@code inBits}
   * (inputs) or of the weight precision ({@code weights}), FP8 codes uniform over every finite code
   * (so every exponent, subnormals and zeros occur).
   */
  public static long[][] randomOperands(PimMacroConfig c, int a, int b, Random r, boolean weights) {
    long[][] v = new long[a][b];
    FloatFormat f = c.precision().isFp() ? PimMode.format(c) : null;
    PimInputFormat in = c.precision().isFp() && !weights ? PimGolden.inputFormat(c) : null;
    for (int i = 0; i < a; i++) {
      for (int j = 0; j < b; j++) {
        v[i][j] = f == null ? randomInt(r, weights ? c.precision().codeBits : c.inBits())
            : in != null ? randomFiniteInput(in, r) : randomFinite(f, r);
      }
    }
    return v;
  }

  private static long randomFiniteInput(PimInputFormat in, Random r) {
    int code;
    do {
      code = r.nextInt(1 << in.codeBits());
    } while (in.fields(code, 127).special());
    return code;
  }

  private static long randomInt(Random r, int bits) {
    return r.nextInt(1 << bits) - (1 << (bits - 1));
  }

  private static long randomFinite(FloatFormat f, Random r) {
    int code;
    do {
      code = r.nextInt(f.codeCount());
    } while (f.isNaN(code) || f.isInfinite(code));
    return code;
  }

  /** Runs {@code x} (M×K) times {@code w} (K×N) on a fresh model of the macro. */
  public static Outcome run(PimMacroConfig c, long[][] x, long[][] w, SimOptions options) {
    return run(c, x, null, w, options);
  }

  /** As {@link #run(PimMacroConfig, long[][], long[][], SimOptions)} with the E8M0 scales of MX inputs. */
  public static Outcome run(PimMacroConfig c, long[][] x, int[][] xScales, long[][] w, SimOptions options) {
    int m = x.length;
    int k = w.length;
    int n = k == 0 ? 0 : w[0].length;
    PimGolden.Expected golden = PimGolden.run(c, x, xScales, w);
    PimMacroDriver.Run rtl;
    try (Simulator sim = Simulators.start(Verilog.emit(new PimMacro(c)), options)) {
      sim.reset(2);
      rtl = new PimMacroDriver(sim, c).gemm(x, xScales, PimGolden.tiles(c, w), k, n);
    }
    boolean rtlSpecial = rtl.special() || (c.alignment() == PimMacroConfig.Alignment.PRE && PimGolden.weightSpecial(c, w));
    long mismatches = 0;
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        BigInteger got = rtl.y()[i][j];
        if (got == null || !got.equals(golden.acc()[i][j])) {
          mismatches++;
        }
      }
    }
    boolean exact = mismatches == 0 && rtl.overflow() == golden.overflow() && rtlSpecial == golden.special()
        && rtl.psumWritebacks() == golden.psumWritebacks();
    double snr = Double.NaN;
    double rel = Double.NaN;
    if (c.precision().isFp() && !golden.special()) {
      double[][] ref = PimGolden.reference(c, x, xScales, w);
      double sig = 0;
      double err = 0;
      double maxRef = 0;
      double maxErr = 0;
      for (int i = 0; i < m; i++) {
        for (int j = 0; j < n; j++) {
          double d = golden.values()[i][j] - ref[i][j];
          sig += ref[i][j] * ref[i][j];
          err += d * d;
          maxRef = Math.max(maxRef, Math.abs(ref[i][j]));
          maxErr = Math.max(maxErr, Math.abs(d));
        }
      }
      snr = err == 0 ? Double.POSITIVE_INFINITY : 10 * Math.log10(sig / err);
      rel = maxRef == 0 ? 0 : maxErr / maxRef;
    }
    return new Outcome(exact, mismatches, rtl.cycles(), PimCycleModel.gemmCycles(c, m, k, n), rtl.psumWritebacks(),
        rtl.psumReadbacks(), PimCycleModel.psumWritebacks(c, m, k, n), rtl.overflow(), rtlSpecial, snr, rel,
        PimCycleModel.utilization(c, m, k, n));
  }
}
