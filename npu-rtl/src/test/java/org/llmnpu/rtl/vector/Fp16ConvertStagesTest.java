package org.llmnpu.rtl.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.llmnpu.hdl.sim.Simulator;

/**
 * {@link Fp16Convert} with 2 and 3 internal pipeline registers (the Vector DSP's three and four
 * execute stages), fed one operation per cycle: every result, {@code stages} cycles later, equals
 * the golden conversion ({@link Fp16ConvertTest#golden}); FROM_INT on extreme and random integers
 * of both signs, TO_INT on every format, NARROW, SCALB16 and WIDEN on random operands.
 */
class Fp16ConvertStagesTest {

  @ParameterizedTest(name = "stages={0}")
  @ValueSource(ints = {2, 3})
  void pipelinedConversionsMatchTheGolden(int stages) {
    Random rnd = new Random(0xC0DE + stages);
    int[] extremes = {0, 1, -1, 2, -2, Integer.MIN_VALUE, Integer.MAX_VALUE, Integer.MIN_VALUE + 1, 65504, -65504,
        2047, -2048, 1 << 30, -(1 << 30)};
    List<int[]> ops = new ArrayList<>();
    for (int q : extremes) {
      for (int scale : new int[] {0x3C00, 0xBC00, 0x0001, 0x8001, 0x7BFF, 0x7C00, 0xFC00, 0x7E00, 0x0000, 0x8000,
          0x1400, 0x4200}) {
        ops.add(new int[] {Fp16Convert.FROM_INT, 0, q, scale});
      }
    }
    for (int k = 0; k < 30_000; k++) {
      int op = rnd.nextInt(5);
      int a = op == Fp16Convert.NARROW || op == Fp16Convert.FROM_INT ? rnd.nextInt() : rnd.nextInt(0x10000);
      int b = switch (op) {
        case Fp16Convert.NARROW -> rnd.nextInt(81) - 40;
        case Fp16Convert.SCALB16 -> rnd.nextInt(61) - 30;
        default -> rnd.nextInt(0x10000);
      };
      if (op == Fp16Convert.FROM_INT && rnd.nextBoolean()) {
        a >>= rnd.nextInt(32);
      }
      ops.add(new int[] {op, rnd.nextInt(3), a, b});
    }
    try (Simulator sim = VectorSim.start(new Fp16Convert(stages))) {
      for (int i = 0; i < ops.size() + stages - 1; i++) {
        if (i < ops.size()) {
          int[] o = ops.get(i);
          sim.poke("op", o[0]);
          sim.poke("format", o[1]);
          sim.poke("a", o[2] & 0xFFFFFFFFL);
          sim.poke("b", o[3] & 0xFFFFFFFFL);
        }
        sim.step();
        int j = i - (stages - 1);
        if (j >= 0) {
          int[] o = ops.get(j);
          assertEquals(Fp16ConvertTest.golden(o[0], o[1], o[2], o[3]), (int) sim.peekLong("result"),
              String.format("op %d format %d a 0x%08x b 0x%08x", o[0], o[1], o[2], o[3]));
        }
      }
    }
  }
}
