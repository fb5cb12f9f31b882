package org.llmnpu.rtl.mx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.mx.MxBlock;
import org.llmnpu.numerics.mx.MxElementType;

/** The decoder equals MxBlock.dequantizeToFp32/Fp16 on every code of every type, at every tested scale. */
class MxDecoderTest {

  @ParameterizedTest
  @EnumSource(MxFormat.class)
  void everyCodeAtEveryTestedScaleDecodesToTheGoldenFp32AndFp16(MxFormat format) {
    for (FpLayout out : new FpLayout[] {FpLayout.FP32, FpLayout.FP16}) {
      MxElementType type = MxSim.golden(format);
      try (Simulator sim = MxSim.start(new MxDecoder(new MxDecoder.Config(format, out)))) {
        for (int scale : MxSim.SCALES) {
          sim.poke("scale", scale);
          for (int code = 0; code < type.codeCount(); code++) {
            MxBlock block = new MxBlock(type, scale, new int[] {code});
            long expected = out == FpLayout.FP32 ? Float.floatToRawIntBits(block.dequantizeToFp32()[0]) & 0xFFFFFFFFL
                : block.dequantizeToFp16()[0] & 0xFFFFL;
            sim.poke("code", code);
            int c = code;
            assertEquals(expected, sim.peekLong("value"),
                () -> String.format("%s code 0x%x scale %d -> %s", format, c, scale, MxDecoder.outputName(out)));
          }
        }
      }
    }
  }
}
