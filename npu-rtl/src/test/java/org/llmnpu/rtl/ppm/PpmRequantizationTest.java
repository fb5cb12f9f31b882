package org.llmnpu.rtl.ppm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.llmnpu.numerics.requant.QuantizedMultiplier;
import org.llmnpu.numerics.requant.RequantParams;
import org.llmnpu.numerics.requant.Requantizer;

/**
 * Verilator: the PPM without the PPU equals {@code Requantizer.requantize} bit for bit on random
 * and corner-case channels and accumulators, for each clamp (NONE, RELU, RELU6), output width and
 * requantizer depth (6, 7 and the default 8 stages: 16-, 8- and 4-bit multiplier slices),
 * with back-to-back and gapped {@code inValid}; {@code outValid} follows the documented latency on
 * every cycle, and channel registers are rewritten between batches without rebuilding the model.
 */
class PpmRequantizationTest {

  static Stream<PpmConfig> configurations() {
    return Stream.of(
        PpmConfig.of(8, 8, PpmConfig.Activation.NONE),
        PpmConfig.of(3, 4, PpmConfig.Activation.RELU),
        PpmConfig.of(5, 8, PpmConfig.Activation.RELU6),
        PpmConfig.of(2, 4, PpmConfig.Activation.RELU6),
        PpmConfig.of(3, 8, PpmConfig.Activation.NONE).withStages(6, PpmConfig.DEFAULT_HORNER_STAGES),
        PpmConfig.of(2, 8, PpmConfig.Activation.RELU6).withStages(7, PpmConfig.DEFAULT_HORNER_STAGES));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void requantizationEqualsTheGoldenModelOnRandomAndCornerCases(PpmConfig config) {
    RequantCases cases = new RequantCases(config.cols() * 31L + config.outBits(), config);
    int cols = config.cols();
    try (PpmBench bench = new PpmBench(config)) {
      checkBatch(bench, saturatingBiasChannels(cases, cols), saturatingRows(cols), new boolean[] {true});
      checkBatch(bench, roundingTieChannels(cases, cols), smallRows(cases, cols), new boolean[] {true});
      for (int batch = 0; batch < 40; batch++) {
        int[] bias = new int[cols];
        RequantParams[] params = new RequantParams[cols];
        for (int j = 0; j < cols; j++) {
          bias[j] = cases.bias();
          params[j] = cases.params();
        }
        boolean[] pattern = batch % 3 == 2 ? new boolean[] {true, false, true, true, false, false} : new boolean[] {true};
        checkBatch(bench, new Channels(bias, params), cases.rows(24, cols), pattern);
      }
    }
  }

  /** Bias and params of every lane. */
  record Channels(int[] bias, RequantParams[] params) {
  }

  /** Extreme biases with unit scale (multiplier 2^30, shift 1) so a saturated bias sum shows in the output. */
  private static Channels saturatingBiasChannels(RequantCases cases, int cols) {
    int[] bias = new int[cols];
    RequantParams[] params = new RequantParams[cols];
    for (int j = 0; j < cols; j++) {
      bias[j] = j % 2 == 0 ? Integer.MAX_VALUE : Integer.MIN_VALUE;
      RequantParams r = cases.params();
      params[j] = new RequantParams(new QuantizedMultiplier(1 << 30, j % 3 == 0 ? 1 : -30), r.outputZeroPoint(),
          r.format(), r.activation(), r.sixCode());
    }
    return new Channels(bias, params);
  }

  /**
   * Multiplier 2^30 halves exactly (even accumulators) or ties in the doubling high multiply (odd
   * ones); shifts −1 … −3 then put half of the values on a rounding tie of the power-of-two divide.
   */
  private static Channels roundingTieChannels(RequantCases cases, int cols) {
    int[] bias = new int[cols];
    RequantParams[] params = new RequantParams[cols];
    for (int j = 0; j < cols; j++) {
      RequantParams r = cases.params();
      params[j] = new RequantParams(new QuantizedMultiplier(1 << 30, j % 4 == 3 ? 0 : -1 - j % 3), r.outputZeroPoint(),
          r.format(), r.activation(), r.sixCode());
    }
    return new Channels(bias, params);
  }

  private static List<int[]> smallRows(RequantCases cases, int cols) {
    List<int[]> rows = new ArrayList<>();
    for (int i = 0; i < 32; i++) {
      int[] row = new int[cols];
      for (int j = 0; j < cols; j++) {
        row[j] = cases.random().nextInt(129) - 64;
      }
      rows.add(row);
    }
    return rows;
  }

  private static List<int[]> saturatingRows(int cols) {
    List<int[]> rows = new ArrayList<>();
    int[] values = {Integer.MAX_VALUE, Integer.MIN_VALUE, 1, -1, 0, 100, -100};
    for (int v : values) {
      int[] row = new int[cols];
      for (int j = 0; j < cols; j++) {
        row[j] = j % 2 == 0 ? v : -v - 1;
      }
      rows.add(row);
    }
    return rows;
  }

  private static void checkBatch(PpmBench bench, Channels channels, List<int[]> rows, boolean[] pattern) {
    bench.loadChannels(channels.bias(), channels.params());
    List<int[]> out = bench.stream(rows, pattern);
    assertEquals(rows.size(), out.size(), "rows out");
    for (int i = 0; i < rows.size(); i++) {
      int[] expected = new int[rows.get(i).length];
      for (int j = 0; j < expected.length; j++) {
        expected[j] = Requantizer.requantize(rows.get(i)[j], channels.bias()[j], channels.params()[j]);
      }
      int row = i;
      assertArrayEquals(expected, out.get(i), () -> "row " + row + " acc " + java.util.Arrays.toString(rows.get(row))
          + " bias " + java.util.Arrays.toString(channels.bias()) + " params " + java.util.Arrays.toString(channels.params()));
    }
  }
}
