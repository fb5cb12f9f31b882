package org.llmnpu.reports.energy;

import java.util.Random;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.ppu.PpuFitter;
import org.llmnpu.numerics.ppu.PpuFormat;
import org.llmnpu.numerics.ppu.PpuFunction;
import org.llmnpu.numerics.ppu.PpuTable;
import org.llmnpu.pim.PimMacroConfig;
import org.llmnpu.pim.PimMacroDriver;
import org.llmnpu.pim.PimWeightTiles;
import org.llmnpu.rtl.ppm.PpmConfig;

/**
 * The calibration workloads of the PPM and the PiM macro, driven through their ports (see
 * {@link Calibration#ppm} and {@link Calibration#pim}): seeded random data, the shapes the NPU
 * gives them.
 */
final class BlockWorkloads {
  private BlockWorkloads() {
  }

  /**
   * Writes {@code channels} channels of the PPM's parameter memory ({@code LinePpm}), one a cycle: a random bias
   * (±2^16), a Q0.31 multiplier in [2^30, 2^31 − 1], a right shift of 6..12 (so random INT32 accumulators of ±2^20
   * land across the INT8 range) and a zero point in −8..7.
   */
  static void loadPpmChannels(Simulator s, int channels, Random rnd) {
    for (int j = 0; j < channels; j++) {
      s.poke("cfgWrite", 1);
      s.poke("cfgChannel", j);
      s.poke("cfgBias", rnd.nextInt(1 << 17) - (1 << 16));
      s.poke("cfgMultiplier", (1L << 30) + rnd.nextInt(1 << 30));
      s.poke("cfgShift", -(6 + rnd.nextInt(7)));
      s.poke("cfgZeroPoint", rnd.nextInt(16) - 8);
      s.step();
    }
    s.poke("cfgWrite", 0);
  }

  /** Writes the C-LUT with the GELU table of the configuration's format, one entry per cycle. */
  static void loadPpuTable(Simulator s, PpmConfig c) {
    PpuTable t = PpuFitter.fit(PpuFunction.GELU, new PpuFormat(c.segments(), c.degree(), c.coeffBits()));
    int[] boundaries = t.boundaries();
    for (int i = 0; i < boundaries.length; i++) {
      writeLut(s, c.lutAddressOfBoundary(i), boundaries[i]);
    }
    for (int seg = 0; seg < c.segments(); seg++) {
      for (int k = 0; k <= c.degree(); k++) {
        writeLut(s, c.lutAddressOfCoefficient(seg, k), t.coefficient(seg, k));
      }
    }
    for (int k = 0; k <= c.degree(); k++) {
      writeLut(s, c.lutAddressOfFracBits(k), t.fracBits(k));
    }
    s.poke("lutWrite", 0);
  }

  private static void writeLut(Simulator s, int address, int data) {
    s.poke("lutWrite", 1);
    s.poke("lutAddress", address);
    s.poke("lutData", data);
    s.step();
  }

  /**
   * Streams {@code rows} lines of random INT32 accumulators (±2^20) back to back, line r of channel group
   * {@code r mod groups} (as a GEMM's drain lines walk the columns), then drains the pipeline
   * ({@code latency} cycles). Returns the elements processed.
   */
  static long streamPpm(Simulator s, PpmConfig c, int groups, int latency, Random rnd, int rows) {
    for (int r = 0; r < rows; r++) {
      s.poke("inValid", 1);
      s.poke("inGroup", r % groups);
      for (int j = 0; j < c.cols(); j++) {
        s.poke("inAcc_" + j, rnd.nextInt(1 << 21) - (1 << 20));
      }
      s.step();
    }
    s.poke("inValid", 0);
    s.step(latency);
    return (long) rows * c.cols();
  }

  /**
   * A GEMM of random INT8 X (M×K) and W (K×N) on the macro in the driver's order (weight tile
   * written row by row, then the vectors). Returns the input vectors the macro took:
   * {@code M · ceil(K/rows) · ceil(N/cols)}.
   */
  static long pimGemm(Simulator s, PimMacroConfig c, Random rnd, int m, int k, int n) {
    long[][] x = new long[m][k];
    long[][] w = new long[k][n];
    for (long[] row : x) {
      for (int i = 0; i < k; i++) {
        row[i] = rnd.nextInt(256) - 128;
      }
    }
    for (long[] row : w) {
      for (int i = 0; i < n; i++) {
        row[i] = rnd.nextInt(256) - 128;
      }
    }
    new PimMacroDriver(s, c).gemm(x, PimWeightTiles.plain(w, c.rows()), k, n);
    return (long) m * ((k + c.rows() - 1) / c.rows()) * ((n + c.cols() - 1) / c.cols());
  }
}
