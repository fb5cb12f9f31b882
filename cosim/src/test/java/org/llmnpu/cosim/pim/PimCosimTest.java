package org.llmnpu.cosim.pim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.llmnpu.hdl.ToolsForTests;
import org.llmnpu.pim.PimInput;
import org.llmnpu.pim.PimMacroConfig;
import org.llmnpu.pim.PimPrecision;
import org.llmnpu.verilator.SimModes;

/**
 * The PiM macro RTL equals its golden model bit for bit (psums, overflow and special flags, psum
 * write-backs) and its cycle formula, on random ragged GEMMs and corner cases, in every mode.
 */
class PimCosimTest {
  private static final PimMacroConfig.Alignment PRE = PimMacroConfig.Alignment.PRE;
  private static final PimMacroConfig.Alignment POST = PimMacroConfig.Alignment.POST;
  private static final PimMacroConfig.Alignment NONE = PimMacroConfig.Alignment.NONE;

  @BeforeAll
  static void tools() {
    ToolsForTests.require("verilator");
  }

  static PimMacroConfig int8(int k, int acc, int depth) {
    return new PimMacroConfig(5, 3, PimPrecision.INT8, NONE, 8, k, 0, acc, 4, depth);
  }

  static PimMacroConfig fp(PimPrecision p, PimMacroConfig.Alignment a, int k, int alignBits, int depth) {
    return new PimMacroConfig(4, 3, p, a, 8, k, alignBits, 32, 3, depth);
  }

  static Stream<Arguments> randomRuns() {
    return Stream.of(
        Arguments.of("int8 bit-serial, ic depth 2", int8(1, 32, 2), 6, 13, 7),
        Arguments.of("int4 weights, 6-bit inputs, 4 bits/cycle, depth 1",
            new PimMacroConfig(5, 3, PimPrecision.INT4, NONE, 6, 4, 0, 32, 4, 1), 5, 11, 4),
        Arguments.of("fp8 e4m3 pre 6 bits, 2 bits/cycle", fp(PimPrecision.FP8_E4M3, PRE, 2, 6, 0), 4, 9, 5),
        Arguments.of("fp8 e4m3 post bit-serial, depth 1", fp(PimPrecision.FP8_E4M3, POST, 1, 0, 1), 4, 9, 5),
        Arguments.of("fp8 e5m2 pre 3 bits (= no extra bits)", fp(PimPrecision.FP8_E5M2, PRE, 3, 3, 0), 4, 9, 5),
        Arguments.of("fp8 e5m2 post, 2 bits/cycle", fp(PimPrecision.FP8_E5M2, POST, 2, 0, 2), 4, 9, 5),
        Arguments.of("int8 double-buffered bitcells, 2 bits/cycle, depth 2",
            new PimMacroConfig(5, 3, PimPrecision.INT8, NONE, 8, 2, 0, 32, 4, 2, 2), 6, 13, 7),
        Arguments.of("fp8 e4m3 pre double-buffered, one cycle per MVM",
            fp(PimPrecision.FP8_E4M3, PRE, 7, 6, 0).withWeightBanks(2), 4, 9, 5),
        Arguments.of("fp8 e5m2 post double-buffered", fp(PimPrecision.FP8_E5M2, POST, 1, 0, 1).withWeightBanks(2), 4, 9, 5),
        Arguments.of("bf16 inputs, e4m3 weights, pre 10 bits, 4 bits/cycle", bf16(PRE), 3, 9, 4),
        Arguments.of("bf16 inputs, e4m3 weights, post, 2 bits/cycle", bf16(POST), 3, 9, 4),
        Arguments.of("mxfp8 e4m3 inputs (4 rows in a block), pre 8 bits, depth 1",
            fp(PimPrecision.FP8_E4M3, PRE, 3, 8, 1).withInput(PimInput.MXFP8), 3, 70, 4),
        Arguments.of("mxfp8 e5m2 inputs, post", fp(PimPrecision.FP8_E5M2, POST, 1, 0, 0).withInput(PimInput.MXFP8), 3, 70, 4),
        Arguments.of("mxint8 inputs, e4m3 weights, post, 4 bits/cycle",
            fp(PimPrecision.FP8_E4M3, POST, 4, 0, 2).withInput(PimInput.MXINT8), 3, 70, 4),
        Arguments.of("mxint8 inputs, 64 rows (2 blocks per row group, a block past K), pre 9 bits", MX64, 2, 150, 3),
        Arguments.of("int8 bit-serial unpipelined (stages 0), ic depth 2", int8(1, 32, 2).withStages(0), 6, 13, 7),
        Arguments.of("fp8 e4m3 pre on one row, stages 3: the next exponent word lands before the periphery cycle",
            new PimMacroConfig(1, 3, PimPrecision.FP8_E4M3, PRE, 8, 3, 8, 32, 3, 1).withStages(3), 4, 5, 5),
        Arguments.of("fp8 e5m2 post double-buffered, stages 1",
            fp(PimPrecision.FP8_E5M2, POST, 1, 0, 1).withWeightBanks(2).withStages(1), 4, 9, 5),
        Arguments.of("int8 double-buffered, one cycle per MVM, stages 3",
            new PimMacroConfig(5, 3, PimPrecision.INT8, NONE, 8, 8, 0, 32, 4, 2, 2).withStages(3), 6, 13, 7));
  }

  static final PimMacroConfig MX64 = new PimMacroConfig(64, 3, PimPrecision.FP8_E4M3, PRE, 8, 5, 9, 32, 2, 0, 1,
      PimInput.MXINT8);

  static PimMacroConfig bf16(PimMacroConfig.Alignment a) {
    return a == PRE ? fp(PimPrecision.FP8_E4M3, PRE, 4, 10, 0).withInput(PimInput.BF16)
        : fp(PimPrecision.FP8_E4M3, POST, 2, 0, 1).withInput(PimInput.BF16);
  }

  @ParameterizedTest(name = "{0}: M={2} K={3} N={4}")
  @MethodSource("randomRuns")
  void randomRaggedGemmIsBitExactAndMeetsTheCycleFormula(String name, PimMacroConfig c, int m, int k, int n) {
    PimCosim.Outcome o = PimCosim.random(c, m, k, n, 17, SimModes.local());
    assertEquals(0, o.mismatches(), "psums differing from the golden model");
    assertTrue(o.bitExact(), "flags and traffic equal the golden model: " + o);
    assertEquals(o.modelCycles(), o.rtlCycles(), "RTL cycles vs PimCycleModel");
    assertEquals(o.modelWritebacks(), o.psumWritebacks(), "psum write-backs vs formula");
    assertEquals(o.psumWritebacks(), o.psumReadbacks());
  }

  @Test
  void int8ExtremesSaturateOncePerRowGroupLikeTheGoldenModel() {
    PimMacroConfig c = int8(3, 14, 1);
    long[][] x = {{-128, -128, -128, -128, -128, 127, 127}, {127, -128, 0, 1, -1, 127, -128}};
    long[][] w = new long[7][3];
    for (int r = 0; r < 7; r++) {
      w[r] = new long[] {-128, 127, r % 2 == 0 ? -128 : 127};
    }
    PimCosim.Outcome o = PimCosim.run(c, x, w, SimModes.local());
    assertTrue(o.overflow(), "14-bit psums overflow on these extremes");
    assertTrue(o.bitExact(), o.toString());
    assertEquals(o.modelCycles(), o.rtlCycles());
  }

  @Test
  void fp8CornerCodesAreBitExactInBothAlignments() {
    // E4M3: max normal ±448 (0x7E/0xFE), smallest subnormal (0x01), ±0, the smallest normal (0x08),
    // mixed with 1.0 so pre-alignment drops the small ones' bits.
    long[][] x = {{0x7E, 0x01, 0x00, 0x80, 0x08, 0x38}, {0xFE, 0x7E, 0x01, 0x81, 0x38, 0x00}};
    long[][] w = {{0x7E, 0x01, 0x38}, {0x01, 0x7E, 0xB8}, {0x80, 0x00, 0x08}, {0x7E, 0xFE, 0x01},
        {0x08, 0x88, 0x7E}, {0x38, 0x38, 0x38}};
    for (PimMacroConfig.Alignment a : new PimMacroConfig.Alignment[] {PRE, POST}) {
      // the configurations of the random runs, so the models are built once
      PimMacroConfig c = a == PRE ? fp(PimPrecision.FP8_E4M3, PRE, 2, 6, 0) : fp(PimPrecision.FP8_E4M3, POST, 1, 0, 0);
      PimCosim.Outcome o = PimCosim.run(c, x, w, SimModes.local());
      assertTrue(o.bitExact(), a + ": " + o);
      assertEquals(o.modelCycles(), o.rtlCycles());
      if (a == POST) {
        assertEquals(Double.POSITIVE_INFINITY, o.snrDb(), "post-alignment is exact");
      } else {
        assertTrue(o.maxRelError() > 0, "pre-alignment drops the bits of the small elements");
      }
    }
  }

  @Test
  void nanAndInfinityEnterAsZeroAndRaiseTheSpecialFlag() {
    // E5M2: +Inf 0x7C, NaN 0x7E in the inputs; max finite 57344 (0x7B) and the smallest subnormal (0x01).
    long[][] x = {{0x7C, 0x7B, 0x01, 0x3C}, {0x7E, 0x00, 0x7B, 0xFB}};
    long[][] w = {{0x3C, 0x7B}, {0x01, 0x7B}, {0x7B, 0x01}, {0xBC, 0x3C}};
    for (PimMacroConfig.Alignment a : new PimMacroConfig.Alignment[] {PRE, POST}) {
      PimMacroConfig c = a == PRE ? fp(PimPrecision.FP8_E5M2, PRE, 3, 3, 0) : fp(PimPrecision.FP8_E5M2, POST, 2, 0, 0);
      PimCosim.Outcome o = PimCosim.run(c, x, w, SimModes.local());
      assertTrue(o.special(), a + ": special flag");
      assertTrue(o.bitExact(), a + ": " + o);
    }
    PimMacroConfig post = fp(PimPrecision.FP8_E5M2, POST, 2, 0, 0);
    long[][] finite = {{0x3C, 0x7B}};
    long[][] nanWeight = {{0x7F}, {0x3C}};
    PimCosim.Outcome o = PimCosim.run(post, finite, nanWeight, SimModes.local());
    assertTrue(o.special() && o.bitExact(), "a NaN weight in the bitcells raises the flag: " + o);
    PimCosim.Outcome clean = PimCosim.run(post, finite, new long[][] {{0x3C}, {0x3C}}, SimModes.local());
    assertFalse(clean.special());
  }

  @Test
  void bf16CornerCodesAreBitExactAndSpecialsRaiseTheFlag() {
    // max finite ±3.39e38 (0x7F7F/0xFF7F), smallest subnormal 2^-133 (0x0001), ±0, the smallest
    // normal (0x0080), 1.0 (0x3F80); weights: E4M3 max 448, smallest subnormal, ±1
    long[][] x = {{0x7F7F, 0x0001, 0x0000, 0x8000, 0x0080, 0x3F80}, {0xFF7F, 0x3F80, 0x0001, 0x0080, 0x8000, 0x7F7F}};
    long[][] w = {{0x7E, 0x01, 0x38}, {0x01, 0x7E, 0xB8}, {0x80, 0x00, 0x08}, {0x7E, 0xFE, 0x01},
        {0x08, 0x88, 0x7E}, {0x38, 0x38, 0x38}};
    for (PimMacroConfig.Alignment a : new PimMacroConfig.Alignment[] {PRE, POST}) {
      PimMacroConfig c = bf16(a);
      PimCosim.Outcome o = PimCosim.run(c, x, w, SimModes.local());
      assertTrue(o.bitExact(), a + ": " + o);
      assertEquals(o.modelCycles(), o.rtlCycles());
      assertFalse(o.special());
      if (a == POST) {
        // exact: the only difference left is the FP64 reference's own rounding of 3.4e38 + 2^-133 terms
        assertTrue(o.snrDb() > 300, "post-alignment is exact over the whole BF16 range: " + o.snrDb() + " dB");
      }
      long[][] inf = {{0x7F80, 0x3F80, 0, 0, 0, 0}, {0x7FC1, 0, 0, 0, 0, 0xFF80}};
      PimCosim.Outcome s = PimCosim.run(c, inf, w, SimModes.local());
      assertTrue(s.special() && s.bitExact(), a + " BF16 Inf/NaN: " + s);
    }
  }

  @Test
  void mxScaleExtremesAndTheNanScaleAreBitExact() {
    // 33 elements = two blocks: block 0 at the largest scale (2^127) with max/min elements, block 1
    // at the smallest (2^-127): pre-alignment drops all of block 1, post keeps it exactly.
    long[][] x = new long[2][33];
    for (int i = 0; i < 33; i++) {
      x[0][i] = i % 3 == 0 ? 0x7E : i % 3 == 1 ? 0x01 : 0x80;
      x[1][i] = i % 2 == 0 ? 0xFE : 0x38;
    }
    long[][] w = new long[33][2];
    for (int i = 0; i < 33; i++) {
      w[i] = new long[] {0x7E, i % 2 == 0 ? 0x01 : 0xB8};
    }
    int[][] scales = {{254, 0}, {0, 254}};
    for (PimMacroConfig.Alignment a : new PimMacroConfig.Alignment[] {PRE, POST}) {
      PimMacroConfig c = a == PRE ? fp(PimPrecision.FP8_E4M3, PRE, 3, 8, 1).withInput(PimInput.MXFP8)
          : fp(PimPrecision.FP8_E5M2, POST, 1, 0, 0).withInput(PimInput.MXFP8);
      long[][] xc = a == PRE ? x : new long[][] {{0x7B, 0x01, 0x80}, {0xFB, 0x3C, 0x00}};
      long[][] wc = a == PRE ? w : new long[][] {{0x7B, 0x01}, {0x01, 0xBC}, {0x3C, 0x3C}};
      int[][] sc = a == PRE ? scales : new int[][] {{254}, {0}};
      PimCosim.Outcome o = PimCosim.run(c, xc, sc, wc, SimModes.local());
      assertTrue(o.bitExact(), a + ": " + o);
      assertEquals(o.modelCycles(), o.rtlCycles());
      assertFalse(o.special());
      int[][] nan = a == PRE ? new int[][] {{254, 255}, {0, 254}} : new int[][] {{255}, {0}};
      PimCosim.Outcome s = PimCosim.run(c, xc, nan, wc, SimModes.local());
      assertTrue(s.special() && s.bitExact(), a + " NaN scale: " + s);
    }
  }
}
