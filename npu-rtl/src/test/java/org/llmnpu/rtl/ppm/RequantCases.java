package org.llmnpu.rtl.ppm;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.llmnpu.numerics.requant.Activation;
import org.llmnpu.numerics.requant.OutputFormat;
import org.llmnpu.numerics.requant.QuantizedMultiplier;
import org.llmnpu.numerics.requant.RequantParams;

/**
 * Deterministic channel parameters and accumulators for requantization tests: random values
 * mixed with the corners (INT32 extremes, bias-add saturation, multipliers 0, 2^30 and
 * 2^31 − 1, shifts −31 … 31 including left shifts that saturate, zero points at the range ends,
 * RELU6 bounds at the zero point and above the format).
 */
final class RequantCases {
  private static final int[] CORNER_INTS = {Integer.MIN_VALUE, Integer.MIN_VALUE + 1, -1, 0, 1, Integer.MAX_VALUE - 1,
      Integer.MAX_VALUE};
  private static final int[] CORNER_SHIFTS = {-31, -30, -17, -2, -1, 0, 1, 2, 30, 31};

  private final Random rnd;
  private final OutputFormat format;
  private final Activation activation;

  RequantCases(long seed, PpmConfig config) {
    this.rnd = new Random(seed);
    this.format = config.outBits() == 8 ? OutputFormat.INT8 : OutputFormat.INT4;
    this.activation = switch (config.activation()) {
      case RELU -> Activation.RELU;
      case RELU6 -> Activation.RELU6;
      default -> Activation.NONE;
    };
  }

  /** Parameters of one channel. */
  RequantParams params() {
    int multiplier = switch (rnd.nextInt(6)) {
      case 0 -> 0;
      case 1 -> 1 << 30;
      case 2 -> Integer.MAX_VALUE;
      default -> (1 << 30) + rnd.nextInt(1 << 30);
    };
    int shift = rnd.nextInt(3) == 0 ? CORNER_SHIFTS[rnd.nextInt(CORNER_SHIFTS.length)] : rnd.nextInt(63) - 31;
    int zeroPoint = switch (rnd.nextInt(4)) {
      case 0 -> format.min();
      case 1 -> format.max();
      default -> format.min() + rnd.nextInt(format.max() - format.min() + 1);
    };
    int sixCode = switch (rnd.nextInt(4)) {
      case 0 -> zeroPoint;
      case 1 -> format.max() + 50;
      default -> zeroPoint + rnd.nextInt(format.max() - zeroPoint + 1);
    };
    return new RequantParams(new QuantizedMultiplier(multiplier, shift), zeroPoint, format, activation, sixCode);
  }

  /** A bias: a corner value or random INT32. */
  int bias() {
    return rnd.nextInt(4) == 0 ? CORNER_INTS[rnd.nextInt(CORNER_INTS.length)] : rnd.nextInt();
  }

  /** One accumulator: a corner, full-range random, or small (the typical GEMM magnitude). */
  int accumulator() {
    return switch (rnd.nextInt(5)) {
      case 0 -> CORNER_INTS[rnd.nextInt(CORNER_INTS.length)];
      case 1 -> rnd.nextInt();
      case 2 -> rnd.nextInt(1 << 12) - (1 << 11);
      default -> rnd.nextInt(1 << 20) - (1 << 19);
    };
  }

  /** {@code count} rows of {@code cols} accumulators. */
  List<int[]> rows(int count, int cols) {
    List<int[]> rows = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int[] row = new int[cols];
      for (int j = 0; j < cols; j++) {
        row[j] = accumulator();
      }
      rows.add(row);
    }
    return rows;
  }

  Random random() {
    return rnd;
  }
}
