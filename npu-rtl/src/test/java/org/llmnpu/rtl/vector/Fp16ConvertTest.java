package org.llmnpu.rtl.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.fp16.Fp16;
import org.llmnpu.numerics.fp16.IntFormat;

/**
 * The FP16 conversion unit equals {@code Fp16} bit for bit: WIDEN over all 65,536 codes; SCALB16
 * over all codes for six exponents; TO_INT over all codes for INT8/INT16/INT32 and five scales
 * (plus NaN, ∞, zero, negative and subnormal scales on a subset); FROM_INT over all INT16 values
 * for four scales plus extreme and random INT32 values and every class of scale; NARROW over all
 * FP16 codes widened (round trip), FP32 values at and next to every FP16 rounding midpoint, FP32
 * specials, subnormals and huge values, and random FP32 values for seven exponents including
 * {@code Integer.MIN_VALUE} and {@code Integer.MAX_VALUE}. One Verilator model of
 * {@value #LANES} units side by side serves the whole class, so each batch of {@value #LANES}
 * vectors costs one round trip.
 */
class Fp16ConvertTest {
  static final int LANES = LaneBank.LANES;
  private static final int[] K_SCALB = {0, -1, 1, -20, 20, -40};
  private static final int[] K_NARROW = {0, -5, 7, -200, 200, Integer.MIN_VALUE, Integer.MAX_VALUE};
  private static final short ONE = 0x3C00;
  private static final short TENTH = Fp16.fromDouble(0.1);
  private static final short THIRD = Fp16.fromDouble(1.0 / 3);
  private static final short SCALE_1024 = 0x6400;
  private static final short TWO_TO_MINUS_10 = 0x1400;
  /** FP16 scales of every class: ±0, ±min subnormal, subnormal, min normal, ±1, max, ±∞, NaNs. */
  private static final int[] SPECIAL_SCALES = {0x0000, 0x8000, 0x0001, 0x8001, 0x0155, 0x0400, 0x3C00, 0xBC00,
      0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0xFE01, 0x7C01, 0x4200, 0xB555};

  private static Simulator sim;

  @BeforeAll
  static void start() {
    sim = VectorSim.start(new LaneBank("Fp16Convert", 3, 2, Fp16Convert::new,
        u -> new LaneBank.Ports(u.op, u.format, u.a, u.b, u.result)));
  }

  @AfterAll
  static void stop() {
    if (sim != null) {
      sim.close();
    }
  }

  static int golden(int op, int format, int a, int b) {
    return switch (op) {
      case Fp16Convert.WIDEN -> {
        float f = Fp16.toFloat((short) a);
        yield Float.isNaN(f) ? 0x7FC00000 : Float.floatToRawIntBits(f);
      }
      case Fp16Convert.NARROW -> Fp16.fromDouble(Math.scalb((double) Float.intBitsToFloat(a), b)) & 0xFFFF;
      case Fp16Convert.SCALB16 -> Fp16.scalb((short) a, b) & 0xFFFF;
      case Fp16Convert.TO_INT -> Fp16.toInt((short) a, (short) b, IntFormat.values()[Math.min(format, 2)]);
      case Fp16Convert.FROM_INT -> Fp16.fromInt(a, (short) b) & 0xFFFF;
      default -> 0;
    };
  }

  @Test
  void widenIsExactForEveryFp16Code() {
    Random rnd = new Random(1);
    List<int[]> pairs = new ArrayList<>();
    for (int h = 0; h < 0x10000; h++) {
      // the upper 16 bits of an FP16 operand are ignored
      int upper = (h & 1) == 0 ? 0 : rnd.nextInt() << 16;
      pairs.add(new int[] {h | upper, rnd.nextInt()});
    }
    assertEquals(0x10000, run(Fp16Convert.WIDEN, 0, pairs));
  }

  @Test
  void scalb16MatchesForEveryCodeAndSixExponents() {
    int n = 0;
    for (int k : K_SCALB) {
      List<int[]> pairs = new ArrayList<>();
      for (int h = 0; h < 0x10000; h++) {
        pairs.add(new int[] {h | (h << 16), k});
      }
      n += run(Fp16Convert.SCALB16, 0, pairs);
    }
    assertEquals(6 * 0x10000, n);
  }

  @Test
  void toIntMatchesForEveryCodeEveryFormatAndFiveScales() {
    int n = 0;
    short[] scales = {ONE, TENTH, THIRD, SCALE_1024, TWO_TO_MINUS_10};
    for (int format = 0; format < 4; format++) {
      for (short scale : scales) {
        if (format == 3 && scale != ONE) {
          continue;
        }
        List<int[]> pairs = new ArrayList<>();
        for (int h = 0; h < 0x10000; h++) {
          pairs.add(new int[] {h, scale & 0xFFFF | (h << 16)});
        }
        n += run(Fp16Convert.TO_INT, format, pairs);
      }
      // every class of scale on every 37th code, all specials included
      List<int[]> pairs = new ArrayList<>();
      for (int scale : SPECIAL_SCALES) {
        for (int h = 0; h < 0x10000; h += 37) {
          pairs.add(new int[] {h, scale});
        }
        for (int h : SPECIAL_SCALES) {
          pairs.add(new int[] {h, scale});
        }
      }
      n += run(Fp16Convert.TO_INT, format, pairs);
    }
    assertEquals(16 * 0x10000 + 4 * SPECIAL_SCALES.length * (1772 + SPECIAL_SCALES.length), n);
  }

  @Test
  void fromIntMatchesForEveryInt16AndRandomAndExtremeInt32() {
    int n = 0;
    short[] scales = {ONE, TWO_TO_MINUS_10, TENTH, Fp16.fromDouble(3.0)};
    for (short scale : scales) {
      List<int[]> pairs = new ArrayList<>();
      for (int q = Short.MIN_VALUE; q <= Short.MAX_VALUE; q++) {
        pairs.add(new int[] {q, scale & 0xFFFF});
      }
      n += run(Fp16Convert.FROM_INT, 0, pairs);
    }
    Random rnd = new Random(0xF16C);
    int[] extremes = {Integer.MIN_VALUE, Integer.MAX_VALUE, Integer.MIN_VALUE + 1, Integer.MAX_VALUE - 1, 0, 1, -1,
        65504, 65505, -65520, 65520, 65519, 1 << 24, (1 << 24) + 1, 2049, -2049, 4095};
    List<int[]> pairs = new ArrayList<>();
    for (int q : extremes) {
      for (int scale : SPECIAL_SCALES) {
        pairs.add(new int[] {q, scale});
      }
      for (short scale : scales) {
        pairs.add(new int[] {q, scale & 0xFFFF});
      }
    }
    for (int i = 0; i < 100_000; i++) {
      // random magnitudes of every size, random FP16 scales (upper bits of b are ignored)
      int q = rnd.nextInt() >> rnd.nextInt(32);
      pairs.add(new int[] {q, rnd.nextInt()});
    }
    n += run(Fp16Convert.FROM_INT, 0, pairs);
    assertEquals(4 * 0x10000 + extremes.length * (SPECIAL_SCALES.length + scales.length) + 100_000, n);
  }

  @Test
  void narrowRoundTripsEveryWidenedFp16Code() {
    List<int[]> pairs = new ArrayList<>();
    for (int h = 0; h < 0x10000; h++) {
      pairs.add(new int[] {Float.floatToRawIntBits(Fp16.toFloat((short) h)), 0});
    }
    assertEquals(0x10000, run(Fp16Convert.NARROW, 0, pairs));
    for (int h = 0; h < 0x10000; h++) {
      if (!Fp16.isNaN((short) h)) {
        assertEquals(h, golden(Fp16Convert.NARROW, 0, pairs.get(h)[0], 0), "round trip of the golden");
      }
    }
  }

  @Test
  void narrowRoundsCorrectlyAtAndNextToEveryFp16Midpoint() {
    List<int[]> pairs = new ArrayList<>();
    for (int h = 0; h <= 0x7BFF; h++) {
      double low = Fp16.toDouble((short) h);
      double midpoint = h == 0x7BFF ? 65520.0 : (low + Fp16.toDouble((short) (h + 1))) / 2;
      float m = (float) midpoint;
      assertEquals(midpoint, m, 0.0, "midpoints are FP32 values");
      for (float f : new float[] {m, Math.nextUp(m), Math.nextDown(m)}) {
        pairs.add(new int[] {Float.floatToRawIntBits(f), 0});
        pairs.add(new int[] {Float.floatToRawIntBits(-f), 0});
      }
    }
    assertEquals(6 * 0x7C00, run(Fp16Convert.NARROW, 0, pairs));
  }

  @Test
  void narrowMatchesOnSpecialsSubnormalsHugeAndRandomFp32ForSevenExponents() {
    int[] specials = {0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000,
        0x3F800000, 0xBF800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001,
        0xFFFFFFFF, 0x477FE000, 0x477FEFFF, 0x477FF000, 0x477FF001, 0x33000000, 0x33000001, 0xB3000000, 0x32FFFFFF,
        0x387FC000, 0x387FE000, 0x38800000, 0x5F000000, 0x1F000000};
    Random rnd = new Random(0x1A22);
    int n = 0;
    for (int k : K_NARROW) {
      List<int[]> pairs = new ArrayList<>();
      for (int f : specials) {
        pairs.add(new int[] {f, k});
      }
      for (int i = 0; i < 20_000; i++) {
        int f = rnd.nextInt();
        if ((i & 1) == 1) {
          // exponents around the FP16 range shifted by k (normal, subnormal, overflow, underflow)
          int target = 127 - 30 + rnd.nextInt(52);
          int field = k == 0 || Math.abs(k) > 100 ? target : target - k;
          f = f & 0x807FFFFF | (Math.max(0, Math.min(254, field)) << 23);
          if (rnd.nextInt(4) == 0) {
            f &= ~((1 << (rnd.nextInt(14))) - 1); // few low bits: exact ties
          }
        }
        pairs.add(new int[] {f, k});
      }
      n += run(Fp16Convert.NARROW, 0, pairs);
    }
    assertEquals(K_NARROW.length * (specials.length + 20_000), n);
  }

  @Test
  void reservedOpsGiveZero() {
    List<int[]> pairs = new ArrayList<>();
    Random rnd = new Random(5);
    for (int i = 0; i < 4 * LANES; i++) {
      pairs.add(new int[] {rnd.nextInt(), rnd.nextInt()});
    }
    for (int op = 5; op < 8; op++) {
      assertEquals(pairs.size(), run(op, 2, pairs));
    }
  }
  /** Applies the pairs {@value #LANES} at a time; returns how many were compared. */
  private static int run(int op, int format, List<int[]> pairs) {
    sim.poke("op", op);
    sim.poke("format", format);
    return LaneBank.run(sim, pairs, (a, b) -> golden(op, format, a, b),
        (a, b) -> String.format("op %d format %d a 0x%08x b 0x%08x", op, format, a, b));
  }
}
