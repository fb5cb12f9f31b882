package org.llmnpu.rtl.mac;

import java.math.BigInteger;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.rtl.ppm.PpmConfig;

/**
 * The PPM side of driving a simulated {@link GemmPpmEngine}: per-channel parameters and the PPU
 * C-LUT go in before the run, requantized codes come out after it. The GEMM itself (buffers,
 * start, wait, INT32 results, counters) is driven by {@link GemmEngineDriver} on the same model.
 */
public final class GemmPpmDriver {
  private final Simulator sim;
  private final GemmEngineConfig config;
  private final PpmConfig ppm;

  public GemmPpmDriver(Simulator sim, GemmEngineConfig config, PpmConfig ppm) {
    this.sim = sim;
    this.config = config;
    this.ppm = ppm;
  }

  /**
   * Writes the parameters of output channels 0..N−1: bias (INT32), Q0.31 multiplier, shift
   * (positive = left), zero point, and with RELU6 the upper clamp code ({@code sixCode} may be
   * null otherwise).
   */
  public void loadChannels(int[] bias, int[] multiplier, int[] shift, int[] zeroPoint, int[] sixCode) {
    sim.poke("chWrite", 1);
    for (int j = 0; j < bias.length; j++) {
      sim.poke("chAddress", j);
      sim.poke("chBias", bias[j]);
      sim.poke("chMultiplier", multiplier[j]);
      sim.poke("chShift", shift[j]);
      sim.poke("chZeroPoint", zeroPoint[j]);
      if (ppm.activation() == PpmConfig.Activation.RELU6) {
        sim.poke("chSixCode", sixCode[j]);
      }
      sim.step();
    }
    sim.poke("chWrite", 0);
  }

  /** Writes a PPU table (boundaries, coefficients[segment][power], fracBits[power]) into the C-LUT. */
  public void loadTable(int[] boundaries, int[][] coefficients, int[] fracBits) {
    sim.poke("lutWrite", 1);
    for (int i = 0; i < boundaries.length; i++) {
      writeLut(ppm.lutAddressOfBoundary(i), boundaries[i]);
    }
    for (int s = 0; s < coefficients.length; s++) {
      for (int k = 0; k < coefficients[s].length; k++) {
        writeLut(ppm.lutAddressOfCoefficient(s, k), coefficients[s][k]);
      }
    }
    for (int k = 0; k < fracBits.length; k++) {
      writeLut(ppm.lutAddressOfFracBits(k), fracBits[k]);
    }
    sim.poke("lutWrite", 0);
  }

  private void writeLut(int address, int data) {
    sim.poke("lutAddress", address);
    sim.poke("lutData", data);
    sim.step();
  }

  /** The requantized (and activated) codes of the last run, M×N. */
  public int[][] readCodes(int m, int n) {
    int cols = config.array().cols();
    int bits = ppm.outBits();
    int[][] q = new int[m][n];
    for (int nt = 0; nt * cols < n; nt++) {
      for (int mm = 0; mm < m; mm++) {
        sim.poke("qAddress", ((long) mm << config.nTileBits()) | nt);
        BigInteger row = sim.peek("qData");
        for (int c = 0; c < cols && nt * cols + c < n; c++) {
          long v = row.shiftRight(bits * c).longValue() & ((1L << bits) - 1);
          q[mm][nt * cols + c] = (int) (v << (64 - bits) >> (64 - bits));
        }
      }
    }
    return q;
  }
}
