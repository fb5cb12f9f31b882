package org.llmnpu.rtl.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.fp.Fma;
import org.llmnpu.numerics.fp16.Fp16;

/**
 * The FP16 FMA equals {@code Fma.fp16} bit for bit: every triple of the special values, 150,000
 * random triples (half uniform bit patterns, half an addend that nearly cancels the product: the
 * cases where one rounding differs from mul-then-add), and it is lint clean and synthesizes.
 */
class Fp16FmaTest {

  @Test
  void specialAndRandomTriplesMatchTheGoldenFma() {
    Random rnd = new Random(0xF3A);
    try (Simulator sim = VectorSim.start(new Fp16Fma(new Fp16Fma.Config(0)))) {
      for (int a : Fp16AluTest.SPECIALS) {
        for (int b : Fp16AluTest.SPECIALS) {
          for (int c : Fp16AluTest.SPECIALS) {
            check(sim, a, b, c);
          }
        }
      }
      for (int k = 0; k < 150_000; k++) {
        int a = rnd.nextInt(0x10000);
        int b = rnd.nextInt(0x10000);
        int c;
        if ((k & 1) == 0) {
          c = rnd.nextInt(0x10000);
        } else {
          int negated = Fp16.neg(Fp16.mul((short) a, (short) b)) & 0xFFFF;
          c = (negated + rnd.nextInt(9) - 4) & 0xFFFF;
        }
        check(sim, a, b, c);
      }
    }
  }

  @Test
  void registeredFmaIsLintCleanAndSynthesizes() {
    BlockGenerator g = BlockRegistry.find("fp16-fma");
    VectorSim.assertLintClean(g.build(Params.resolve(g, Map.of("latency", "1"))), true);
    VectorSim.assertLintClean(new Fp16Fma(new Fp16Fma.Config(0)), false);
  }

  private static void check(Simulator sim, int a, int b, int c) {
    sim.poke("a", a);
    sim.poke("b", b);
    sim.poke("c", c);
    long expected = Fma.fp16((short) a, (short) b, (short) c) & 0xFFFF;
    long got = sim.peekLong("result");
    if (expected != got) {
      assertEquals(String.format("0x%04x", expected), String.format("0x%04x", got),
          String.format("fma(0x%04x, 0x%04x, 0x%04x)", a, b, c));
    }
  }
}
