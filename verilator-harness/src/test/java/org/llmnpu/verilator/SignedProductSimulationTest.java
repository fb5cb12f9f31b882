package org.llmnpu.verilator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.SignedProducts;
import org.llmnpu.hdl.sim.Simulator;

/**
 * Signed products as the emitter writes them (Verilog signed multiplies whose width comes from the
 * assignment holding them) compute, in Verilator, exactly the values plain Java arithmetic gives:
 * every operand's extremes and random values, in every position of {@link SignedProducts}.
 */
class SignedProductSimulationTest {
  @Test
  void everySignedProductMatchesJavaArithmetic() {
    List<long[]> vectors = new ArrayList<>();
    long[] a8 = {-128, -127, -1, 0, 1, 127};
    long[] c4 = {-8, -1, 0, 7};
    long[] d12 = {-2048, -1, 0, 2047};
    for (long a : a8) {
      for (long b : a8) {
        for (long c : c4) {
          vectors.add(new long[] {a, b, c, d12[(int) ((a + b + c) & 3)], a * 1_000_003L, (b & 0xFFF) ^ 0x800,
              (a ^ c) & 1});
        }
      }
    }
    Random rnd = new Random(33);
    for (int i = 0; i < 500; i++) {
      vectors.add(new long[] {rnd.nextInt(256) - 128, rnd.nextInt(256) - 128, rnd.nextInt(16) - 8,
          rnd.nextInt(4096) - 2048, rnd.nextInt(), rnd.nextInt(4096), rnd.nextInt(2)});
    }
    try (Simulator s = SimModes.startLocal(new SignedProducts())) {
      String[] inputs = {"a", "b", "c", "d", "acc", "u", "sel"};
      for (long[] v : vectors) {
        for (int i = 0; i < inputs.length; i++) {
          s.poke(inputs[i], v[i]);
        }
        Map<String, Long> expected = SignedProducts.expected(v[0], v[1], v[2], v[3], v[4], v[5], v[6] == 1);
        for (var e : expected.entrySet()) {
          assertEquals((long) e.getValue(), s.peekLong(e.getKey()), () -> e.getKey() + " for a, b, c, d, acc, u, sel = "
              + java.util.Arrays.toString(v));
        }
      }
    }
  }
}
