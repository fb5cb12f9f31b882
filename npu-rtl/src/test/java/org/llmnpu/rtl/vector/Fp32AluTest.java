package org.llmnpu.rtl.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.sim.Simulator;

/**
 * The FP32 ALU equals Java {@code float} arithmetic bit for bit (NaN canonicalized to
 * 0x7FC00000): every pair of a list of special values for each op, and 120,000 random pairs per
 * op (half uniform bit patterns; half nearby magnitudes that cancel, tiny operands with
 * subnormal results, far-apart exponents with sticky bits, exact ties and products near the
 * underflow and overflow thresholds). One Verilator model of {@value #LANES} ALUs side by side
 * serves the whole class, so each batch of {@value #LANES} vectors costs one round trip.
 */
class Fp32AluTest {
  static final int LANES = LaneBank.LANES;
  private static final int[] OPS = {Fp32Alu.ADD, Fp32Alu.SUB, Fp32Alu.MUL};
  private static final int RANDOM_PAIRS = 120_000;

  /** ±0, ±min/max subnormal, ±min normal, ±1, ±max, ±inf, NaNs, and values whose sums overflow or cancel. */
  static final int[] SPECIALS = {0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF,
      0x00800000, 0x80800000, 0x3F800000, 0xBF800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000,
      0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF, 0x7FBFFFFF, 0x3F800001, 0x3F7FFFFF, 0x00400000,
      0x7F000000, 0x7F7FFFFE, 0xFF000000, 0x40000000, 0x3F000000, 0x33800000, 0x34000000, 0x00800001,
      0x80800001, 0x1F800000, 0x5F800000, 0x4B800000, 0xCB800001};

  private static Simulator sim;

  @BeforeAll
  static void start() {
    sim = VectorSim.start(new LaneBank("Fp32Alu", 2, 0, Fp32Alu::new,
        u -> new LaneBank.Ports(u.op, null, u.a, u.b, u.result)));
  }

  @AfterAll
  static void stop() {
    if (sim != null) {
      sim.close();
    }
  }

  static int golden(int op, int a, int b) {
    float x = Float.intBitsToFloat(a);
    float y = Float.intBitsToFloat(b);
    float r = switch (op) {
      case Fp32Alu.ADD -> x + y;
      case Fp32Alu.SUB -> x - y;
      case Fp32Alu.MUL -> x * y;
      default -> throw new IllegalArgumentException("op " + op);
    };
    return Float.isNaN(r) ? 0x7FC00000 : Float.floatToRawIntBits(r);
  }

  @Test
  void everyPairOfSpecialValuesMatchesJavaFloatForEveryOp() {
    List<int[]> pairs = new ArrayList<>();
    for (int a : SPECIALS) {
      for (int b : SPECIALS) {
        pairs.add(new int[] {a, b});
      }
    }
    for (int op : OPS) {
      assertEquals(pairs.size(), run(sim, op, pairs));
    }
  }

  @Test
  void reservedOpGivesZero() {
    List<int[]> pairs = new ArrayList<>();
    for (int a : SPECIALS) {
      pairs.add(new int[] {a, 0x3F800000});
    }
    sim.poke("op", 3);
    for (int start = 0; start < pairs.size(); start += LANES) {
      List<int[]> batch = pairs.subList(start, Math.min(pairs.size(), start + LANES));
      BigInteger got = LaneBank.apply(sim, batch);
      for (int l = 0; l < batch.size(); l++) {
        assertEquals(0, LaneBank.lane(got, l), "reserved op, a " + Integer.toHexString(batch.get(l)[0]));
      }
    }
  }

  @Test
  void randomPairsMatchJavaFloatForEveryOp() {
    Random rnd = new Random(0xF32A1);
    for (int op : OPS) {
      List<int[]> pairs = new ArrayList<>(RANDOM_PAIRS);
      for (int k = 0; k < RANDOM_PAIRS; k++) {
        pairs.add(randomPair(rnd, op, k));
      }
      assertEquals(RANDOM_PAIRS, run(sim, op, pairs));
    }
  }

  /** Half uniform bit patterns; the other half cycles through the hard cases. */
  static int[] randomPair(Random rnd, int op, int k) {
    int a = rnd.nextInt();
    if ((k & 1) == 0) {
      return new int[] {a, rnd.nextInt()};
    }
    int sign = rnd.nextBoolean() ? 0x80000000 : 0;
    int b;
    switch ((k >> 1) % 5) {
      case 0 -> {
        // nearby magnitudes: cancellation, carries, ties
        int span = 1 << (1 + rnd.nextInt(30));
        b = (((a & 0x7FFFFFFF) + rnd.nextInt(span) - span / 2) & 0x7FFFFFFF) | sign;
      }
      case 1 -> {
        // tiny operands: subnormal sums and differences
        a = (a & 0x807FFFFF) | (rnd.nextInt(4) << 23);
        b = (rnd.nextInt() & 0x007FFFFF) | (rnd.nextInt(4) << 23) | sign;
      }
      case 2 -> {
        // far-apart exponents (sticky bits), sometimes an exact half ulp of the larger one
        int ea = 24 + rnd.nextInt(200);
        int eb = ea - 1 - rnd.nextInt(30);
        a = (a & 0x807FFFFF) | (ea << 23);
        int fraction = rnd.nextInt(3) == 0 ? 0 : rnd.nextInt() & 0x007FFFFF;
        b = fraction | (eb << 23) | sign;
      }
      case 3 -> {
        // products near the underflow threshold (subnormal and rounding-to-zero results)
        int ea = 1 + rnd.nextInt(98);
        int eb = 99 - ea + rnd.nextInt(36);
        a = (a & 0x807FFFFF) | (ea << 23);
        b = (rnd.nextInt() & 0x007FFFFF) | (eb << 23) | sign;
      }
      default -> {
        // products and sums near the overflow threshold; few low bits for exact ties
        int ea = 100 + rnd.nextInt(154);
        int eb = op == Fp32Alu.MUL ? Math.max(0, Math.min(254, 254 - ea + 127 - rnd.nextInt(3))) : 254;
        a = (a & 0x80000000) | (ea << 23) | (rnd.nextInt(64) << (rnd.nextBoolean() ? 17 : 0));
        b = (rnd.nextInt(64) << (rnd.nextBoolean() ? 17 : 0)) | (eb << 23) | sign;
      }
    }
    return new int[] {a, b};
  }
  /** Applies the pairs {@value #LANES} at a time; returns how many were compared. */
  static int run(Simulator sim, int op, List<int[]> pairs) {
    sim.poke("op", op);
    return LaneBank.run(sim, pairs, (a, b) -> golden(op, a, b), (a, b) -> String.format("op %d a 0x%08x (%s) b 0x%08x (%s)",
        op, a, Float.intBitsToFloat(a), b, Float.intBitsToFloat(b)));
  }
}
