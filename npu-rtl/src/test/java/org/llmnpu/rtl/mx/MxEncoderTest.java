package org.llmnpu.rtl.mx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.fp.FloatFormat;
import org.llmnpu.numerics.fp.Overflow;
import org.llmnpu.numerics.fp.Rounding;
import org.llmnpu.numerics.fp16.Fp16;
import org.llmnpu.numerics.mx.MxElementType;

/**
 * The encoder equals {@code MxElementType.encode(v · 2^-E)} for inputs derived from every code
 * of each type (the code's value, the midpoints to its neighbours, one FP32 ulp either side of
 * each), FP32 specials and random bit patterns, at scales across the E8M0 range.
 */
class MxEncoderTest {

  @ParameterizedTest
  @EnumSource(MxFormat.class)
  void everyCodeItsTiesAndNeighboursEncodeAsTheGoldenWithRne(MxFormat format) {
    check(format, FpLayout.FP32, RoundMode.NEAREST_EVEN, new int[] {0, 1, 2, 10, 20, 100, 119, 120, 126, 127, 128, 135,
        140, 200, 253, 254, 255});
  }

  @ParameterizedTest
  @EnumSource(value = MxFormat.class, names = {"FP8_E4M3", "FP4_E2M1", "INT8"})
  void tiesGoAwayFromZeroWithTheTiesAwayOption(MxFormat format) {
    check(format, FpLayout.FP32, RoundMode.NEAREST_AWAY, new int[] {0, 20, 127, 130, 254, 255});
  }

  @ParameterizedTest
  @EnumSource(value = MxFormat.class, names = {"FP8_E5M2", "FP6_E2M3", "INT8"})
  void fp16InputsEncodeAsTheGolden(MxFormat format) {
    check(format, FpLayout.FP16, RoundMode.NEAREST_EVEN, new int[] {100, 110, 120, 125, 127, 130, 135, 255});
  }

  @Test
  void encoderRejectsAFormatThatIsNotGiven() {
    org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> new MxEncoder.Config(null, FpLayout.FP32, RoundMode.NEAREST_EVEN));
  }

  private static void check(MxFormat format, FpLayout input, RoundMode rounding, int[] scales) {
    MxElementType type = MxSim.golden(format);
    Rounding goldenRounding = MxSim.golden(rounding);
    boolean fp16 = FpLayout.FP16.equals(input);
    try (Simulator sim = MxSim.start(new MxEncoder(new MxEncoder.Config(format, input, rounding)))) {
      for (int scale : scales) {
        sim.poke("scale", scale);
        for (long bits : inputs(type, scale, fp16)) {
          double v = fp16 ? Fp16.toDouble((short) bits) : Float.intBitsToFloat((int) bits);
          boolean invalid = !Double.isFinite(v) || scale == 255;
          long expected = invalid ? 0 : type.encode(Math.scalb(v, -(scale - 127)), goldenRounding);
          sim.poke("value", bits);
          assertEquals(expected, sim.peekLong("code"),
              () -> String.format("%s %s input 0x%x (%s) scale %d", format, rounding, bits, v, scale));
          assertEquals(invalid ? 1 : 0, sim.peekLong("invalid"));
        }
      }
    }
  }

  /** Input bit patterns: per code its value, midpoints to the next code, and ±1 ulp of each; specials; random. */
  private static List<Long> inputs(MxElementType type, int scale, boolean fp16) {
    FloatFormat in = fp16 ? FloatFormat.FP16 : FloatFormat.FP32;
    int e = scale == 255 ? 0 : scale - 127;
    List<Double> reals = new ArrayList<>();
    for (int c = 0; c < type.codeCount(); c++) {
      double a = type.decode(c);
      if (!Double.isFinite(a)) {
        continue;
      }
      double next = c + 1 < type.codeCount() ? type.decode(c + 1) : Double.NaN;
      reals.add(a);
      if (Double.isFinite(next) && Math.signum(next) * Math.signum(a) >= 0) {
        reals.add((a + next) / 2);
      }
      if (Math.abs(a) == type.maxNormal()) {
        reals.add(a * 1.0625);
        reals.add(a * 2);
      }
    }
    List<Long> out = new ArrayList<>();
    for (double r : reals) {
      long bits = in.encode(Math.scalb(r, e), Rounding.NEAREST_EVEN, Overflow.INFINITY);
      out.add(bits);
      out.add(nextUp(bits, in));
      out.add(nextDown(bits, in));
    }
    int width = in.totalBits();
    long mask = (1L << width) - 1;
    long inf = in.infinityCode(false);
    out.addAll(List.of(inf, inf | (1L << (width - 1)), (long) in.nanCode(), 0L, 1L << (width - 1), 1L, 2L,
        (long) in.maxFiniteCode(false), (long) in.maxFiniteCode(true)));
    Random rnd = new Random(scale * 31L + type.ordinal());
    for (int i = 0; i < 300; i++) {
      out.add(rnd.nextLong() & mask);
    }
    return out;
  }

  private static long nextUp(long bits, FloatFormat f) {
    long mag = bits & ((1L << (f.totalBits() - 1)) - 1);
    return mag == f.infinityCode(false) ? bits : bits + 1;
  }

  private static long nextDown(long bits, FloatFormat f) {
    long mag = bits & ((1L << (f.totalBits() - 1)) - 1);
    return mag == 0 ? bits : bits - 1;
  }
}
