package org.llmnpu.rtl.mx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.mx.MxBlock;
import org.llmnpu.numerics.mx.MxDot;
import org.llmnpu.numerics.mx.MxElementType;

/** The dot-product unit equals MxDot.dot on random and adversarial block pairs, {@code stages} cycles after input. */
class MxDotProductTest {

  /** With {@code stages} > 1 each pair is held for {@code stages} cycles (the streaming test below covers throughput). */
  @ParameterizedTest(name = "{0} x {1}, {2} stages")
  @CsvSource({"FP8_E4M3, FP8_E4M3, 1", "FP8_E5M2, FP8_E5M2, 1", "FP6_E3M2, FP6_E2M3, 1", "FP4_E2M1, FP4_E2M1, 1",
      "INT8, INT8, 1", "FP8_E4M3, INT8, 1", "FP8_E4M3, FP8_E4M3, 6", "FP8_E5M2, FP8_E5M2, 6",
      "FP6_E3M2, FP6_E2M3, 6", "FP4_E2M1, FP4_E2M1, 6", "INT8, INT8, 6", "FP8_E4M3, INT8, 6", "FP8_E5M2, INT8, 6"})
  void blockPairsGiveTheGoldenFp32(MxFormat formatA, MxFormat formatB, int stages) {
    MxElementType ta = MxSim.golden(formatA);
    MxElementType tb = MxSim.golden(formatB);
    List<int[]> as = MxTestBlocks.codeBlocks(ta, 150, 3 + formatA.ordinal());
    List<int[]> bs = MxTestBlocks.codeBlocks(tb, 150, 9 + formatB.ordinal());
    Random rnd = new Random(formatA.ordinal() * 10L + formatB.ordinal());
    int[][] scalePairs = {{127, 127}, {0, 0}, {254, 254}, {255, 127}, {127, 255}, {1, 254}, {200, 180}, {60, 40}};
    try (Simulator sim = MxSim.start(new MxDotProduct(new MxDotProduct.Config(formatA, formatB, 32, stages)))) {
      sim.reset(1);
      int n = Math.max(as.size(), bs.size());
      for (int k = 0; k < n + 3; k++) {
        int[] ca = k < n ? as.get(k % as.size()) : adversarial(ta, rnd, k - n);
        int[] cb = k < n ? bs.get(rnd.nextInt(bs.size())) : adversarial(tb, rnd, k - n);
        int sa = k < scalePairs.length ? scalePairs[k][0] : 100 + rnd.nextInt(55);
        int sb = k < scalePairs.length ? scalePairs[k][1] : 100 + rnd.nextInt(55);
        MxBlock a = new MxBlock(ta, sa, ca);
        MxBlock b = new MxBlock(tb, sb, cb);
        for (int i = 0; i < 32; i++) {
          sim.poke("codesA_" + i, ca[i]);
          sim.poke("codesB_" + i, cb[i]);
        }
        sim.poke("scaleA", sa);
        sim.poke("scaleB", sb);
        sim.poke("inValid", 1);
        for (int d = 0; d < stages; d++) {
          sim.step();
        }
        long expected = Float.floatToRawIntBits(MxDot.dot(a, b)) & 0xFFFFFFFFL;
        assertEquals(1, sim.peekLong("outValid"));
        assertEquals(expected, sim.peekLong("result"), () -> a + " . " + b);
      }
    }
  }

  @ParameterizedTest(name = "{0} x {0}, {1} stages")
  @CsvSource({"FP8_E5M2, 2", "FP4_E2M1, 3", "INT8, 4", "FP8_E4M3, 5", "FP8_E4M3, 6", "FP8_E5M2, 6", "INT8, 6",
      "FP4_E2M1, 6", "FP6_E3M2, 6"})
  void pipelineStreamsOnePairPerCycleWithLatencyStages(MxFormat format, int stages) {
    MxElementType t = MxSim.golden(format);
    List<int[]> blocks = MxTestBlocks.codeBlocks(t, 60, 21 + format.ordinal());
    Random rnd = new Random(99 + stages);
    try (Simulator sim = MxSim.start(new MxDotProduct(new MxDotProduct.Config(format, format, 32, stages)))) {
      sim.reset(1);
      long start = sim.cycle();
      java.util.ArrayDeque<MxBlock[]> inFlight = new java.util.ArrayDeque<>();
      for (int k = 0; k < blocks.size() + stages - 1; k++) {
        MxBlock[] pair = null;
        if (k < blocks.size()) {
          pair = new MxBlock[] {new MxBlock(t, k == 3 ? 255 : 100 + rnd.nextInt(50), blocks.get(k)),
              new MxBlock(t, 100 + rnd.nextInt(50), blocks.get(rnd.nextInt(blocks.size())))};
          for (int i = 0; i < 32; i++) {
            sim.poke("codesA_" + i, pair[0].element(i));
            sim.poke("codesB_" + i, pair[1].element(i));
          }
          sim.poke("scaleA", pair[0].scaleCode());
          sim.poke("scaleB", pair[1].scaleCode());
        }
        sim.poke("inValid", pair != null ? 1 : 0);
        sim.step();
        inFlight.addLast(pair == null ? new MxBlock[0] : pair);
        // pair k's result is valid after clock edge k + stages
        MxBlock[] p = inFlight.size() == stages ? inFlight.removeFirst() : null;
        if (p != null && p.length == 2) {
          assertEquals(1, sim.peekLong("outValid"), "pair " + (k - stages + 1));
          assertEquals(Float.floatToRawIntBits(MxDot.dot(p[0], p[1])) & 0xFFFFFFFFL, sim.peekLong("result"),
              () -> p[0] + " . " + p[1]);
        } else {
          assertEquals(0, sim.peekLong("outValid"), "cycle " + k);
        }
      }
      assertEquals(blocks.size() + stages - 1, sim.cycle() - start, "B pairs take B + stages - 1 cycles");
    }
  }

  @Test
  void accumulatorWidthsMatchTheGolden() {
    for (MxFormat a : MxFormat.values()) {
      for (MxFormat b : MxFormat.values()) {
        assertEquals(MxDot.accumulatorBits(MxSim.golden(a), MxSim.golden(b), 32),
            new MxDotProduct.Config(a, b, 32).accumulatorBits(), a + " x " + b);
      }
    }
  }

  /** Max codes of one sign (largest sum), alternating signs (cancellation to zero), one max and the rest tiny. */
  private static int[] adversarial(MxElementType t, Random rnd, int kind) {
    int max = maxCode(t, false);
    int[] c = new int[32];
    for (int i = 0; i < 32; i++) {
      c[i] = switch (kind) {
        case 0 -> max;
        case 1 -> i % 2 == 0 ? max : maxCode(t, true);
        default -> i == 0 ? max : 1;
      };
    }
    return c;
  }

  private static int maxCode(MxElementType t, boolean negative) {
    if (t == MxElementType.INT8) {
      return negative ? 0x81 : 0x7F;
    }
    return t.format().maxFiniteCode(negative);
  }
}
