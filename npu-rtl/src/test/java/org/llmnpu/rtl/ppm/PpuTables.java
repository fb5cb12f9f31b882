package org.llmnpu.rtl.ppm;

import java.util.Random;
import org.llmnpu.numerics.ppu.PpuFormat;
import org.llmnpu.numerics.ppu.PpuTable;
import org.llmnpu.numerics.ppu.QuantSpec;
import org.llmnpu.numerics.requant.Activation;
import org.llmnpu.numerics.requant.OutputFormat;
import org.llmnpu.numerics.requant.QuantizedMultiplier;
import org.llmnpu.numerics.requant.RequantParams;

/** Tables and channel settings for PPU tests. */
final class PpuTables {
  private PpuTables() {
  }

  /** The table format of a PPM configuration. */
  static PpuFormat formatOf(PpmConfig c) {
    return new PpuFormat(c.segments(), c.degree(), c.coeffBits());
  }

  /** Requantization that passes an accumulator in [−128, 127] through unchanged: x · 2^30 · 2^(1 − 31) = x. */
  static RequantParams identity() {
    return new RequantParams(new QuantizedMultiplier(1 << 30, 1), 0, OutputFormat.INT8, Activation.NONE, 0);
  }

  /**
   * A valid table with random boundaries, full-range coefficients and non-decreasing fractional
   * bits (often equal): it drives the Horner steps into INT32 saturation and large shifts, which
   * fitted tables never reach.
   */
  static PpuTable random(PpuFormat format, Random rnd) {
    int[] boundaries = rnd.ints(-127, 128).distinct().limit(format.segments() - 1L).sorted().toArray();
    int[][] coefficients = new int[format.segments()][format.degree() + 1];
    for (int[] segment : coefficients) {
      for (int k = 0; k < segment.length; k++) {
        segment[k] = rnd.nextBoolean() ? format.coeffMin() + rnd.nextInt(format.coeffMax() - format.coeffMin() + 1)
            : rnd.nextBoolean() ? format.coeffMax() : format.coeffMin();
      }
    }
    // Equal neighbours (shift 0) let a product overflow INT32 before the next coefficient is added.
    int[] fracBits = new int[format.degree() + 1];
    fracBits[0] = rnd.nextInt(4) == 0 ? 30 : rnd.nextInt(31);
    for (int k = 1; k < fracBits.length; k++) {
      fracBits[k] = Math.min(30, fracBits[k - 1] + (rnd.nextBoolean() ? 0 : rnd.nextInt(8)));
    }
    QuantSpec unit = new QuantSpec(1, 0);
    return new PpuTable("random", format, boundaries, coefficients, fracBits, unit, unit);
  }
}
