package org.llmnpu.rtl.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.fp16.Fp16;

/**
 * The FP16 ALU equals {@code Fp16} bit for bit: every pair of a list of special values for each
 * op (registered and combinational), and 100,000 random pairs per op over 8 lanes in parallel
 * (half uniform bit patterns, half pairs of nearby exponents that cancel or round at ties).
 */
class Fp16AluTest {
  private static final int[] OPS = {Fp16Alu.ADD, Fp16Alu.SUB, Fp16Alu.MUL, Fp16Alu.MIN, Fp16Alu.MAX, Fp16Alu.LT,
      Fp16Alu.EQ};
  private static final int RANDOM_PAIRS = 100_000;

  /** ±0, ±min/max subnormal, ±min normal, ±1, ±max, ±inf, quiet/signalling/negative NaNs, and a few more. */
  static final int[] SPECIALS = {0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x83FF, 0x0400, 0x8400, 0x3C00, 0xBC00,
      0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01, 0xFFFF, 0x3C01, 0x0200, 0x7800, 0x3800};

  static int golden(int op, int a, int b) {
    short x = (short) a;
    short y = (short) b;
    return switch (op) {
      case Fp16Alu.ADD -> Fp16.add(x, y) & 0xFFFF;
      case Fp16Alu.SUB -> Fp16.sub(x, y) & 0xFFFF;
      case Fp16Alu.MUL -> Fp16.mul(x, y) & 0xFFFF;
      case Fp16Alu.MIN -> Fp16.min(x, y) & 0xFFFF;
      case Fp16Alu.MAX -> Fp16.max(x, y) & 0xFFFF;
      case Fp16Alu.LT -> Fp16.lt(x, y) ? 1 : 0;
      case Fp16Alu.EQ -> Fp16.eq(x, y) ? 1 : 0;
      default -> throw new IllegalArgumentException("op " + op);
    };
  }

  @Test
  void everyPairOfSpecialValuesMatchesTheGoldenForEveryOpRegistered() {
    List<int[]> pairs = new ArrayList<>();
    for (int a : SPECIALS) {
      for (int b : SPECIALS) {
        pairs.add(new int[] {a, b});
      }
    }
    try (Simulator sim = VectorSim.start(new Fp16Alu(new Fp16Alu.Config(8, 1)))) {
      for (int op : OPS) {
        run(sim, 8, 1, op, pairs);
      }
    }
  }

  @Test
  void combinationalSingleLaneMatchesOnSpecialValues() {
    List<int[]> pairs = new ArrayList<>();
    for (int a : SPECIALS) {
      for (int b : SPECIALS) {
        pairs.add(new int[] {a, b});
      }
    }
    try (Simulator sim = VectorSim.start(new Fp16Alu(new Fp16Alu.Config(1, 0)))) {
      for (int op : OPS) {
        run(sim, 1, 0, op, pairs);
      }
      sim.poke("op", 7);
      assertEquals(0, sim.peekLong("result_0"), "reserved op gives 0");
    }
  }

  @Test
  void randomPairsMatchTheGoldenForEveryOp() {
    Random rnd = new Random(0x16A1);
    try (Simulator sim = VectorSim.start(new Fp16Alu(new Fp16Alu.Config(8, 1)))) {
      for (int op : OPS) {
        List<int[]> pairs = new ArrayList<>(RANDOM_PAIRS);
        for (int k = 0; k < RANDOM_PAIRS; k++) {
          int a = rnd.nextInt(0x10000);
          int b;
          if ((k & 1) == 0) {
            b = rnd.nextInt(0x10000);
          } else {
            // same or adjacent binade, random sign: cancellation, carries and ties
            int span = 1 << (1 + rnd.nextInt(12));
            int delta = rnd.nextInt(span) - span / 2;
            b = ((a & 0x7FFF) + delta) & 0x7FFF | (rnd.nextBoolean() ? 0x8000 : 0);
          }
          pairs.add(new int[] {a, b});
        }
        run(sim, 8, 1, op, pairs);
      }
    }
  }

  @Test
  void configRejectsOutOfRangeParameters() {
    assertThrows(IllegalArgumentException.class, () -> new Fp16Alu.Config(0, 1));
    assertThrows(IllegalArgumentException.class, () -> new Fp16Alu.Config(65, 1));
    assertThrows(IllegalArgumentException.class, () -> new Fp16Alu.Config(8, 2));
  }

  /** Applies the pairs {@code lanes} at a time and compares each lane with the golden. */
  private static void run(Simulator sim, int lanes, int latency, int op, List<int[]> pairs) {
    sim.poke("op", op);
    for (int start = 0; start < pairs.size(); start += lanes) {
      int n = Math.min(lanes, pairs.size() - start);
      for (int l = 0; l < n; l++) {
        sim.poke("a_" + l, pairs.get(start + l)[0]);
        sim.poke("b_" + l, pairs.get(start + l)[1]);
      }
      if (latency == 1) {
        sim.step();
      }
      for (int l = 0; l < n; l++) {
        int a = pairs.get(start + l)[0];
        int b = pairs.get(start + l)[1];
        long expected = golden(op, a, b);
        long got = sim.peekLong("result_" + l);
        if (expected != got) {
          assertEquals(String.format("0x%04x", expected), String.format("0x%04x", got),
              String.format("op %d a 0x%04x b 0x%04x lane %d", op, a, b, l));
        }
      }
    }
  }
}
