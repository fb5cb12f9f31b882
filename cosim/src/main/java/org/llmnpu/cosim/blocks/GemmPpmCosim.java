package org.llmnpu.cosim.blocks;

import java.util.Arrays;
import java.util.Locale;
import java.util.Random;
import org.llmnpu.numerics.gemm.TiledGemm;
import org.llmnpu.numerics.ppu.Ppm;
import org.llmnpu.numerics.ppu.PpuFitter;
import org.llmnpu.numerics.ppu.PpuFormat;
import org.llmnpu.numerics.ppu.PpuFunction;
import org.llmnpu.numerics.ppu.PpuTable;
import org.llmnpu.numerics.requant.Activation;
import org.llmnpu.numerics.requant.OutputFormat;
import org.llmnpu.numerics.requant.RequantParams;
import org.llmnpu.rtl.mac.GemmPpmDriver;
import org.llmnpu.rtl.ppm.PpmConfig;

/**
 * The PPM half of {@code npu cosim gemm --activation A}: the PPM configuration for an activation
 * name, random per-channel bias and requantization (the output scale maps ±3σ of the accumulators
 * to the INT8 range), the fitted PPU table for a PPU function, and the golden codes.
 */
public final class GemmPpmCosim {
  /** Activation names accepted on the command line. */
  public static final String ALLOWED = "none, relu, relu6, gelu, silu, sigmoid, tanh, exp";

  private final PpmConfig config;
  private final PpuTable table;
  private final Activation requantActivation;
  private int[] bias;
  private RequantParams[] params;

  private GemmPpmCosim(PpmConfig config, PpuTable table, Activation requantActivation) {
    this.config = config;
    this.table = table;
    this.requantActivation = requantActivation;
  }

  /** Parses an activation name; IllegalArgumentException names the allowed values. */
  public static GemmPpmCosim parse(String name, int cols) {
    String a = name.toLowerCase(Locale.ROOT);
    return switch (a) {
      case "none" -> new GemmPpmCosim(PpmConfig.of(cols, 8, PpmConfig.Activation.NONE), null, Activation.NONE);
      case "relu" -> new GemmPpmCosim(PpmConfig.of(cols, 8, PpmConfig.Activation.RELU), null, Activation.RELU);
      case "relu6" -> new GemmPpmCosim(PpmConfig.of(cols, 8, PpmConfig.Activation.RELU6), null, Activation.RELU6);
      case "gelu", "silu", "sigmoid", "tanh", "exp" -> new GemmPpmCosim(PpmConfig.of(cols, 8, PpmConfig.Activation.PPU),
          PpuFitter.fit(PpuFunction.valueOf(a.toUpperCase(Locale.ROOT)), PpuFormat.DEFAULT), Activation.NONE);
      default -> throw new IllegalArgumentException("--activation: '" + name + "' is not allowed; allowed: " + ALLOWED);
    };
  }

  public PpmConfig config() {
    return config;
  }

  /** Draws channel parameters for N channels and K-long dot products, and writes them and the table into the model. */
  void load(GemmPpmDriver driver, Random rnd, int k, int n) {
    double sigma = 5418.0 * Math.sqrt(k);
    bias = new int[n];
    params = new RequantParams[n];
    int[] mult = new int[n];
    int[] shift = new int[n];
    int[] zp = new int[n];
    int[] six = new int[n];
    for (int j = 0; j < n; j++) {
      bias[j] = (int) Math.round(rnd.nextGaussian() * sigma / 4);
      params[j] = RequantParams.of(1.0, 3 * sigma / 127 * (0.5 + rnd.nextDouble()), rnd.nextInt(21) - 10,
          OutputFormat.INT8, requantActivation);
      mult[j] = params[j].multiplier().multiplier();
      shift[j] = params[j].multiplier().shift();
      zp[j] = params[j].outputZeroPoint();
      six[j] = params[j].clampMax();
    }
    driver.loadChannels(bias, mult, shift, zp, six);
    if (table != null) {
      driver.loadTable(table.boundaries(), table.coefficients(), table.fracBits());
    }
  }

  /** Whether the RTL codes equal {@code numerics.ppu.Ppm.process} of the golden GEMM. */
  boolean matches(TiledGemm.Result golden, int[][] codes) {
    return Arrays.deepEquals(Ppm.process(golden.y(), bias, params, table), codes);
  }
}
