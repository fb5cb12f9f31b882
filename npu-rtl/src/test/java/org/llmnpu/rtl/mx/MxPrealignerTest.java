package org.llmnpu.rtl.mx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.mx.MxBlock;
import org.llmnpu.numerics.mx.MxElementType;
import org.llmnpu.numerics.mx.MxPrealign;

/** The pre-aligner equals MxPrealign.exact / aligned on every code and on random and adversarial blocks. */
class MxPrealignerTest {

  @ParameterizedTest(name = "{0} magnitudeBits={1} {2}")
  @CsvSource({
      "FP4_E2M1, 0, TOWARD_ZERO",
      "INT8, 0, TOWARD_ZERO",
      "FP6_E2M3, 0, TOWARD_ZERO",
      "FP8_E4M3, 0, TOWARD_ZERO",
      "FP8_E4M3, 8, TOWARD_ZERO",
      "FP8_E5M2, 8, NEAREST_EVEN",
      "FP6_E3M2, 6, NEAREST_AWAY",
      "FP6_E2M3, 4, NEAREST_EVEN",
      "FP4_E2M1, 4, TOWARD_ZERO",
      "INT8, 20, TOWARD_ZERO"})
  void blocksPrealignAsTheGolden(MxFormat format, int magnitudeBits, RoundMode rounding) {
    MxPrealigner.Config config = new MxPrealigner.Config(format, magnitudeBits, rounding, 32);
    MxElementType type = MxSim.golden(format);
    Random rnd = new Random(format.ordinal() * 7L + magnitudeBits);
    List<int[]> blocks = MxTestBlocks.codeBlocks(type, 60, 5 + magnitudeBits);
    blocks.add(singleNonZero(type, 1));
    blocks.add(singleNonZero(type, type.codeCount() / 2 - 1));
    try (Simulator sim = MxSim.start(new MxPrealigner(config))) {
      sim.reset(1);
      int[] scales = {127, 0, 254, 255, 1, 200};
      for (int b = 0; b < blocks.size(); b++) {
        int scale = b < scales.length ? scales[b] : rnd.nextInt(255);
        MxBlock block = new MxBlock(type, scale, blocks.get(b));
        for (int i = 0; i < 32; i++) {
          sim.poke("codes_" + i, block.element(i));
        }
        sim.poke("scale", scale);
        sim.poke("inValid", 1);
        sim.step();
        MxPrealign.Prealigned expected = magnitudeBits == 0 ? MxPrealign.exact(block)
            : MxPrealign.aligned(block, magnitudeBits, MxSim.golden(rounding));
        assertEquals(1, sim.peekLong("outValid"));
        assertEquals(expected.nan() ? 1 : 0, sim.peekLong("nan"), block::toString);
        assertEquals(expected.exponent(), sim.peekSigned("exponent").intValue(), block::toString);
        int[] ints = expected.ints();
        for (int i = 0; i < 32; i++) {
          int index = i;
          assertEquals(ints[i], sim.peekSigned("ints_" + i).intValue(), () -> block + " element " + index);
        }
      }
    }
  }

  @Test
  void exactPrealignmentOfE5m2IsRejectedNamingTheParameter() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new MxPrealigner.Config(MxFormat.FP8_E5M2, 0, RoundMode.TOWARD_ZERO, 32));
    org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("magnitudeBits"), e.getMessage());
  }

  private static int[] singleNonZero(MxElementType type, int code) {
    int[] codes = new int[32];
    codes[9] = code;
    return codes;
  }
}
