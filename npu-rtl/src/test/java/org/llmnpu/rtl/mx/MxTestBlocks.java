package org.llmnpu.rtl.mx;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.llmnpu.numerics.fp.FloatFormat;
import org.llmnpu.numerics.fp.Overflow;
import org.llmnpu.numerics.fp.Rounding;
import org.llmnpu.numerics.mx.MxElementType;

/** Random and adversarial test blocks, as FP32/FP16 bit patterns or as element codes. Deterministic. */
final class MxTestBlocks {
  static final int SIZE = 32;

  private MxTestBlocks() {
  }

  /**
   * Value blocks in {@code in}'s bit patterns: all zeros (with −0), one huge outlier, subnormals
   * only, ± max values, NaN, ±∞, values on the element grid and its midpoints, wide dynamic range,
   * random bit patterns, and Gaussian blocks at many magnitudes.
   */
  static List<long[]> valueBlocks(FloatFormat in, MxElementType type, int randomBlocks, long seed) {
    Random rnd = new Random(seed);
    List<long[]> blocks = new ArrayList<>();
    int w = in.totalBits();
    long sign = 1L << (w - 1);
    long mantissaMask = (1L << in.mantissaBits()) - 1;
    blocks.add(fill(i -> 0L));
    blocks.add(fill(i -> i % 2 == 0 ? sign : 0L));
    blocks.add(fill(i -> i == 7 ? enc(in, 3.0e4) : enc(in, rnd.nextGaussian())));
    blocks.add(fill(i -> i == 0 ? enc(in, -6.0e4) : enc(in, rnd.nextGaussian() * 1e-3)));
    blocks.add(fill(i -> (rnd.nextLong() & mantissaMask) | (rnd.nextBoolean() ? sign : 0)));
    blocks.add(fill(i -> i == 3 ? 1L : 0L));
    blocks.add(fill(i -> in.maxFiniteCode(i % 3 == 0)));
    blocks.add(fill(i -> i == 5 ? in.nanCode() : enc(in, rnd.nextGaussian())));
    blocks.add(fill(i -> i == 31 ? in.infinityCode(false) : enc(in, rnd.nextGaussian())));
    blocks.add(fill(i -> i == 0 ? in.infinityCode(true) : 0L));
    blocks.add(fill(i -> enc(in, Math.scalb(rnd.nextGaussian(), rnd.nextInt(40) - 20))));
    // every code of the type, 31 per block next to the largest normal (which fixes the scale at
    // 2^e), so each code must come back unchanged; then the midpoints above each code (ties)
    for (int e : new int[] {0, -3}) {
      for (int start = 0; start < type.codeCount(); start += SIZE - 1) {
        int s = start;
        blocks.add(fill(i -> enc(in, Math.scalb(i == SIZE - 1 ? type.maxNormal() : finiteCode(type, s + i), e))));
        blocks.add(fill(i -> enc(in, Math.scalb(i == SIZE - 1 ? type.maxNormal() : midpointAbove(type, s + i), e))));
      }
    }
    for (int e : new int[] {-140, -130, -126, -20, -10, 0, 5, 10, 100, 126}) {
      blocks.add(fill(i -> grid(in, type, rnd, e)));
    }
    for (int b = 0; b < randomBlocks; b++) {
      int mode = b % 3;
      int e = rnd.nextInt(60) - 30;
      blocks.add(fill(i -> switch (mode) {
        case 0 -> enc(in, Math.scalb(rnd.nextGaussian(), e));
        case 1 -> finiteRandom(in, rnd);
        default -> enc(in, Math.scalb(rnd.nextGaussian(), e) / (0.05 + rnd.nextDouble()));
      }));
    }
    return blocks;
  }

  /** Element-code blocks: zeros, max codes, every code in turn, FP8 specials, random. */
  static List<int[]> codeBlocks(MxElementType type, int randomBlocks, long seed) {
    Random rnd = new Random(seed);
    List<int[]> blocks = new ArrayList<>();
    int n = type.codeCount();
    for (int start = 0; start < n; start += SIZE) {
      int s = start;
      blocks.add(fillInt(i -> (s + i) % n));
    }
    blocks.add(fillInt(i -> 0));
    for (int b = 0; b < randomBlocks; b++) {
      blocks.add(fillInt(i -> rnd.nextInt(n)));
    }
    return blocks;
  }

  /** Value of code c (0 for codes past the end or non-finite codes). */
  private static double finiteCode(MxElementType type, int c) {
    if (c >= type.codeCount() || !Double.isFinite(type.decode(c))) {
      return 0;
    }
    return type.decode(c);
  }

  /** Midpoint between code c and c + 1 when both are finite and of one sign, else the value of c. */
  private static double midpointAbove(MxElementType type, int c) {
    double a = finiteCode(type, c);
    double b = finiteCode(type, c + 1);
    return Math.signum(a) * Math.signum(b) >= 0 && c + 1 < type.codeCount() ? (a + b) / 2 : a;
  }

  /** A value on the element grid (or a midpoint, or just off it) at block exponent e. */
  private static long grid(FloatFormat in, MxElementType type, Random rnd, int e) {
    int c = rnd.nextInt(type.codeCount());
    double a = type.decode(c);
    if (!Double.isFinite(a)) {
      a = type.maxNormal();
    }
    double b = c + 1 < type.codeCount() && Double.isFinite(type.decode(c + 1)) ? type.decode(c + 1) : a;
    double v = switch (rnd.nextInt(3)) {
      case 0 -> a;
      case 1 -> (a + b) / 2;
      default -> (a + b) / 2 * (1 + 1e-6);
    };
    return enc(in, Math.scalb(v, e));
  }

  private static long finiteRandom(FloatFormat in, Random rnd) {
    long mask = (1L << in.totalBits()) - 1;
    while (true) {
      long bits = rnd.nextLong() & mask;
      long field = (bits >>> in.mantissaBits()) & ((1L << in.exponentBits()) - 1);
      if (field != (1L << in.exponentBits()) - 1) {
        return bits;
      }
    }
  }

  static long enc(FloatFormat in, double v) {
    return in.encode(v, Rounding.NEAREST_EVEN, Overflow.SATURATE);
  }

  private static long[] fill(java.util.function.IntToLongFunction f) {
    long[] out = new long[SIZE];
    for (int i = 0; i < SIZE; i++) {
      out[i] = f.applyAsLong(i);
    }
    return out;
  }

  private static int[] fillInt(java.util.function.IntUnaryOperator f) {
    int[] out = new int[SIZE];
    for (int i = 0; i < SIZE; i++) {
      out[i] = f.applyAsInt(i);
    }
    return out;
  }
}
