package org.llmnpu.rtl.mx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.fp.FloatFormat;
import org.llmnpu.numerics.fp16.Fp16;
import org.llmnpu.numerics.mx.MxBlock;
import org.llmnpu.numerics.mx.MxElementType;
import org.llmnpu.numerics.mx.MxQuantizer;

/**
 * The quantizer equals MxQuantizer.quantize, one cycle after input, on blocks holding every code
 * of the type (and every midpoint between neighbouring codes) and on random and adversarial
 * FP32/FP16 blocks.
 */
class MxQuantizerTest {

  @ParameterizedTest
  @EnumSource(MxFormat.class)
  void fp32BlocksQuantizeAsTheGoldenWithRne(MxFormat format) {
    check(format, FpLayout.FP32, RoundMode.NEAREST_EVEN);
  }

  @ParameterizedTest
  @EnumSource(value = MxFormat.class, names = {"FP4_E2M1", "FP8_E4M3"})
  void fp16BlocksQuantizeAsTheGolden(MxFormat format) {
    check(format, FpLayout.FP16, RoundMode.NEAREST_EVEN);
  }

  @ParameterizedTest
  @EnumSource(value = MxFormat.class, names = {"FP6_E3M2"})
  void tiesAwayOptionQuantizesAsTheGolden(MxFormat format) {
    check(format, FpLayout.FP32, RoundMode.NEAREST_AWAY);
  }

  @ParameterizedTest(name = "{0}, {1} stages")
  @CsvSource({"FP8_E5M2, 2", "INT8, 2", "FP4_E2M1, 3", "FP8_E4M3, 4", "INT8, 5"})
  void pipelineStreamsOneBlockPerCycleWithLatencyStages(MxFormat format, int stages) {
    MxElementType type = MxSim.golden(format);
    List<long[]> blocks = MxTestBlocks.valueBlocks(FloatFormat.FP32, type, 40, 77 + format.ordinal());
    try (Simulator sim = MxSim.start(new MxBlockQuantizer(new MxBlockQuantizer.Config(format, FpLayout.FP32,
        RoundMode.NEAREST_EVEN, 32, stages)))) {
      sim.reset(1);
      long start = sim.cycle();
      for (int k = 0; k < blocks.size() + stages - 1; k++) {
        boolean feeding = k < blocks.size();
        for (int i = 0; i < 32 && feeding; i++) {
          sim.poke("values_" + i, blocks.get(k)[i]);
        }
        sim.poke("inValid", feeding ? 1 : 0);
        sim.step();
        // block j's result is valid after clock edge j + stages
        int j = k - stages + 1;
        if (j < 0) {
          assertEquals(0, sim.peekLong("outValid"), "nothing valid before the first block's " + stages + " cycles");
          continue;
        }
        double[] values = new double[32];
        for (int i = 0; i < 32; i++) {
          values[i] = Float.intBitsToFloat((int) blocks.get(j)[i]);
        }
        MxBlock expected = MxQuantizer.quantize(type, values);
        assertEquals(1, sim.peekLong("outValid"));
        assertEquals(expected.scaleCode(), sim.peekLong("scale"));
        for (int i = 0; i < 32; i++) {
          assertEquals(expected.element(i), sim.peekLong("codes_" + i), expected::toString);
        }
      }
      // cycle formula: B blocks take B + stages − 1 cycles
      assertEquals(blocks.size() + stages - 1, sim.cycle() - start);
    }
  }

  private static void check(MxFormat format, FpLayout input, RoundMode rounding) {
    MxElementType type = MxSim.golden(format);
    boolean fp16 = FpLayout.FP16.equals(input);
    FloatFormat in = fp16 ? FloatFormat.FP16 : FloatFormat.FP32;
    List<long[]> blocks = MxTestBlocks.valueBlocks(in, type, 150, 41 + format.ordinal());
    try (Simulator sim = MxSim.start(new MxBlockQuantizer(new MxBlockQuantizer.Config(format, input, rounding, 32)))) {
      sim.reset(1);
      long start = sim.cycle();
      for (long[] bits : blocks) {
        double[] values = new double[32];
        for (int i = 0; i < 32; i++) {
          values[i] = fp16 ? Fp16.toDouble((short) bits[i]) : Float.intBitsToFloat((int) bits[i]);
          sim.poke("values_" + i, bits[i]);
        }
        sim.poke("inValid", 1);
        sim.step();
        MxBlock expected = MxQuantizer.quantize(type, values, MxSim.golden(rounding));
        assertEquals(1, sim.peekLong("outValid"));
        assertEquals(expected.scaleCode(), sim.peekLong("scale"), () -> "scale of " + java.util.Arrays.toString(values));
        for (int i = 0; i < 32; i++) {
          int index = i;
          assertEquals(expected.element(i), sim.peekLong("codes_" + i),
              () -> expected + " element " + index + " from " + values[index]);
        }
      }
      // cycle formula: B blocks streamed one per cycle take B cycles, each result one cycle after its input
      assertEquals(blocks.size(), sim.cycle() - start);
    }
  }
}
