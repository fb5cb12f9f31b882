package org.llmnpu.rtl.mx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.mx.MxBlock;
import org.llmnpu.numerics.mx.MxElementType;

/**
 * The dequantizer equals MxBlock.dequantizeToFp32/Fp16, one cycle after input, on blocks of every
 * code and random blocks at extreme and random scales. Its per-element decoder is tested
 * exhaustively for every format in {@link MxDecoderTest}; here the formats with specials and
 * the extremes of width.
 */
class MxDequantizerTest {

  @ParameterizedTest
  @EnumSource(value = MxFormat.class, names = {"FP8_E4M3", "FP8_E5M2", "FP4_E2M1", "INT8"})
  void blocksDequantizeToTheGoldenFp32OneCycleLater(MxFormat format) {
    check(format, FpLayout.FP32);
  }

  @ParameterizedTest
  @EnumSource(value = MxFormat.class, names = {"FP8_E5M2"})
  void blocksDequantizeToTheGoldenFp16(MxFormat format) {
    check(format, FpLayout.FP16);
  }

  private static void check(MxFormat format, FpLayout out) {
    MxElementType type = MxSim.golden(format);
    Random rnd = new Random(format.ordinal());
    List<int[]> blocks = MxTestBlocks.codeBlocks(type, 40, 17 + format.ordinal());
    try (Simulator sim = MxSim.start(new MxDequantizer(new MxDequantizer.Config(format, out, 32)))) {
      sim.reset(1);
      int[] extremeScales = {0, 1, 127, 254, 255, 112, 143};
      for (int b = 0; b < blocks.size(); b++) {
        int scale = b < extremeScales.length ? extremeScales[b] : rnd.nextInt(256);
        MxBlock block = new MxBlock(type, scale, blocks.get(b));
        for (int i = 0; i < 32; i++) {
          sim.poke("codes_" + i, block.element(i));
        }
        sim.poke("scale", scale);
        sim.poke("inValid", 1);
        sim.step();
        sim.poke("inValid", 0);
        assertEquals(1, sim.peekLong("outValid"));
        float[] fp32 = block.dequantizeToFp32();
        short[] fp16 = block.dequantizeToFp16();
        for (int i = 0; i < 32; i++) {
          long expected = FpLayout.FP32.equals(out) ? Float.floatToRawIntBits(fp32[i]) & 0xFFFFFFFFL : fp16[i] & 0xFFFF;
          int index = i;
          assertEquals(expected, sim.peekLong("values_" + i), () -> block + " element " + index);
        }
      }
      sim.step();
      assertEquals(0, sim.peekLong("outValid"));
    }
  }
}
