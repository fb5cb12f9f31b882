package org.llmnpu.rtl.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.fp.Fma;

/**
 * The FP32 FMA equals {@code Fma.fp32Bits} bit for bit: every triple of 35 special values
 * (zeros, subnormals, the normal boundary, ±max, ±∞, NaNs, ties), and 200,000 random triples in
 * four styles — uniform bit patterns; an addend that nearly cancels the product; an addend at
 * every distance from the product (−60..+60 binades: the exact window's edges and the
 * dominated/tiny cases); products and addends around the subnormal range and near overflow; and
 * 40,000 subnormal-times-normal products with an addend 1..30 binades below (the window's sticky
 * bits) — at every {@code stages} 0..3, fed one triple per cycle. It is lint clean and synthesizes.
 */
class Fp32FmaTest {

  @ParameterizedTest(name = "stages={0}")
  @ValueSource(ints = {0, 1, 2, 3})
  void specialAndRandomTriplesMatchTheGoldenFma(int stages) {
    List<int[]> triples = triples();
    try (Simulator sim = VectorSim.start(new Fp32Fma(new Fp32Fma.Config(0, stages)))) {
      // one triple per cycle; each result comes out 'stages' cycles after its operands
      for (int i = 0; i < triples.size() + stages; i++) {
        if (i < triples.size()) {
          int[] t = triples.get(i);
          sim.poke("a", t[0] & 0xFFFFFFFFL);
          sim.poke("b", t[1] & 0xFFFFFFFFL);
          sim.poke("c", t[2] & 0xFFFFFFFFL);
        }
        if (i >= stages) {
          int[] t = triples.get(i - stages);
          check(sim, t[0], t[1], t[2]);
        }
        if (stages > 0) {
          sim.step();
        }
      }
    }
  }

  /** Every triple of the 35 specials, then 200,000 random triples in four styles (see the class comment). */
  private static List<int[]> triples() {
    List<int[]> triples = new ArrayList<>();
    for (int a : Fp32AluTest.SPECIALS) {
      for (int b : Fp32AluTest.SPECIALS) {
        for (int c : Fp32AluTest.SPECIALS) {
          triples.add(new int[] {a, b, c});
        }
      }
    }
    Random rnd = new Random(0xF32A);
    for (int k = 0; k < 200_000; k++) {
      int a = rnd.nextInt();
      int b = rnd.nextInt();
      int c;
      switch (k & 3) {
        case 0 -> c = rnd.nextInt();
        case 1 -> {
          int negated = Float.floatToRawIntBits(-(Float.intBitsToFloat(a) * Float.intBitsToFloat(b)));
          c = negated + rnd.nextInt(9) - 4;
        }
        case 2 -> {
          // a and b of moderate size, the addend 'distance' binades away from the product
          a = (a & 0x807FFFFF) | ((100 + rnd.nextInt(56)) << 23);
          b = (b & 0x807FFFFF) | ((100 + rnd.nextInt(56)) << 23);
          int productExponent = ((a >>> 23) & 0xFF) + ((b >>> 23) & 0xFF) - 127;
          int field = Math.max(0, Math.min(254, productExponent + rnd.nextInt(121) - 60));
          c = (rnd.nextInt() & 0x807FFFFF) | (field << 23);
          if (rnd.nextInt(4) == 0) {
            c &= 0xFF800000; // a power of two: the rounding below a binade boundary
          }
        }
        default -> {
          // tiny products (subnormal results) and products near overflow
          boolean tiny = rnd.nextBoolean();
          int fa = tiny ? rnd.nextInt(64) : 190 + rnd.nextInt(65);
          int fb = tiny ? 64 + rnd.nextInt(64) : 100 + rnd.nextInt(30);
          a = (a & 0x807FFFFF) | (Math.min(fa, 254) << 23);
          b = (b & 0x807FFFFF) | (fb << 23);
          c = tiny ? rnd.nextInt() & 0x80FFFFFF : (rnd.nextInt() & 0x807FFFFF) | ((200 + rnd.nextInt(55)) << 23);
        }
      }
      triples.add(new int[] {a, b, c});
    }
    for (int k = 0; k < 40_000; k++) {
      triples.add(subnormalTimesNormalWithASmallAddend(rnd));
    }
    return triples;
  }

  /**
   * A subnormal times a normal (a product with as few as 24 significant bits), often both powers of two (a product
   * at a binade boundary), and an addend of either sign 1..30 binades below it: the window's sticky addend bits.
   */
  private static int[] subnormalTimesNormalWithASmallAddend(Random rnd) {
    boolean powers = rnd.nextInt(3) == 0;
    int fraction = powers ? 1 << rnd.nextInt(23) : Math.max(1, (rnd.nextInt() & 0x7FFFFF) >>> rnd.nextInt(23));
    int subnormal = (rnd.nextInt() & 0x80000000) | fraction;
    int normal = (rnd.nextInt() & 0x80000000) | ((100 + rnd.nextInt(154)) << 23) | (powers ? 0 : rnd.nextInt() & 0x7FFFFF);
    double product = (double) Float.intBitsToFloat(subnormal) * Float.intBitsToFloat(normal);
    int field = Math.max(0, Math.min(254, Math.getExponent(product) - 1 - rnd.nextInt(30) + 127));
    int c = (rnd.nextInt() & 0x80000000) | (field << 23) | (rnd.nextBoolean() ? 0 : rnd.nextInt() & 0x7FFFFF);
    return rnd.nextBoolean() ? new int[] {subnormal, normal, c} : new int[] {normal, subnormal, c};
  }

  @Test
  void registeredFmaIsLintCleanAndSynthesizes() {
    BlockGenerator g = BlockRegistry.find("fp32-fma");
    VectorSim.assertLintClean(g.build(Params.resolve(g, Map.of("latency", "1"))), true);
    VectorSim.assertLintClean(new Fp32Fma(new Fp32Fma.Config(1, true)), false);
  }

  private static void check(Simulator sim, int a, int b, int c) {
    long expected = Fma.fp32Bits(a, b, c) & 0xFFFFFFFFL;
    long got = sim.peekLong("result");
    if (expected != got) {
      assertEquals(String.format("0x%08x", expected), String.format("0x%08x", got),
          String.format("fma(0x%08x, 0x%08x, 0x%08x)", a, b, c));
    }
  }
}
