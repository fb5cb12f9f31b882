package org.llmnpu.rtl.dsp;

import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspCycleFormula;
import org.llmnpu.isa.dsp.DspPipeline;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.ToolsForTests;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.verilator.SimModes;

/**
 * The {@code vector-dsp} RTL runs every compiled kernel bit for bit equal to the numerics golden
 * kernel, on ragged and exact lengths and corner-case inputs (very large logits, near-zero
 * variance, ±0, ±∞, NaN), at 1, 8, 16 and 64 lanes; every run's cycle counter equals
 * {@link DspCycleFormula}; exp, reciprocal, rsqrt, SiLU and GeLU match on all 65,536 FP16 inputs.
 */
class VectorDspTest {
  static final float EPS = DspProgramTest.EPS;

  /**
   * The 8-lane DSP the RTL tests share (one Verilator build per configuration in a run): 512 buffer rows, 512
   * program words (the conformance test's dumps), a 12-segment degree-2 table; {@code extended}: with the FP32
   * FMA and the permutations.
   */
  static VectorDsp.Config eightLanes(int executeStages, boolean extended) {
    return new VectorDsp.Config(8, 512, 512, 12, 2, executeStages, extended, extended);
  }

  /**
   * The DSP of a 64-wide MAC array ({@code edge-64}'s {@code dspLanes}): 64 lanes, 4 execute stages with the pipelined
   * units on clock gates (as the NPU builds it), 512 rows and program words (the conformance test's dumps).
   */
  static VectorDsp.Config sixtyFourLanes() {
    return new VectorDsp.Config(64, 512, 512, 12, 2, 4, false, false, org.llmnpu.hdl.ClockGating.ON);
  }

  static Simulator start(VectorDsp.Config config) {
    ToolsForTests.require("verilator");
    return SimModes.startLocal(new VectorDsp(config));
  }

  static void check(VectorDspDriver driver, DspKernel kernel, int len, int lanes, short[][] in) {
    check(driver, kernel, len, lanes, in, DspPipeline.DEFAULT);
  }

  static void check(VectorDspDriver driver, DspKernel kernel, int len, int lanes, short[][] in, DspPipeline pipeline) {
    VectorDspDriver.Run run = driver.run(kernel, len, EPS, DspMath.DEFAULT, in);
    short[][] want = DspGolden.expected(kernel, in, EPS, lanes);
    for (int op = 0; op < want.length; op++) {
      assertArrayEquals(want[op], run.outputs()[op], kernel.cliName() + " len " + len + " lanes " + lanes);
    }
    assertEquals(DspCycleFormula.cycles(kernel, len, lanes, pipeline), run.cycles(),
        kernel.cliName() + " cycles at len " + len + ", " + pipeline);
  }

  @org.junit.jupiter.params.ParameterizedTest(name = "{0} execute stages")
  @org.junit.jupiter.params.provider.ValueSource(ints = {2, 3, 4})
  void pipelinedExecuteIsBitExactAndStallsAsTheFormulaSays(int executeStages) {
    VectorDsp.Config config = eightLanes(executeStages, false);
    try (Simulator sim = start(config)) {
      VectorDspDriver driver = new VectorDspDriver(sim, config, DspMath.DEFAULT);
      for (DspKernel kernel : DspKernel.values()) {
        for (int len : new int[] {1, 13, 64}) {
          int l = kernel == DspKernel.ROPE ? 2 * len : len;
          for (int style = 0; style < 3; style++) {
            check(driver, kernel, l, 8, DspGolden.inputs(kernel, l, style, 11L * len + style), config.pipeline());
          }
        }
      }
    }
  }

  @Test
  void everyKernelAtEightLanesEqualsTheGoldenAndTheCycleFormula() {
    VectorDsp.Config config = eightLanes(1, false);
    try (Simulator sim = start(config)) {
      VectorDspDriver driver = new VectorDspDriver(sim, config, DspMath.DEFAULT);
      for (DspKernel kernel : DspKernel.values()) {
        for (int len : new int[] {1, 13, 64, 200}) {
          int l = kernel == DspKernel.ROPE ? 2 * len : len;
          for (int style = 0; style < 3; style++) {
            check(driver, kernel, l, 8, DspGolden.inputs(kernel, l, style, 7L * len + style));
          }
        }
      }
    }
  }

  @Test
  void oneAndSixteenLanesReduceInTheirOwnOrder() {
    for (int lanes : new int[] {1, 16}) {
      VectorDsp.Config config = new VectorDsp.Config(lanes, lanes == 16 ? 512 : 256, 256);
      try (Simulator sim = start(config)) {
        VectorDspDriver driver = new VectorDspDriver(sim, config, DspMath.DEFAULT);
        for (DspKernel kernel : new DspKernel[] {DspKernel.SOFTMAX, DspKernel.RMSNORM, DspKernel.LAYERNORM,
            DspKernel.SUM, DspKernel.MAX, DspKernel.ROPE}) {
          for (int len : new int[] {6, 50}) {
            for (int style = 0; style < 3; style++) {
              check(driver, kernel, len, lanes, DspGolden.inputs(kernel, len, style, 5L * len + style + lanes));
            }
          }
        }
      }
    }
  }

  /**
   * Every kernel on 64 lanes: one element, exactly one row, ragged past a row and several rows, in the three input
   * styles (random, large logits and near-zero variance, the specials), bit for bit and cycle for cycle.
   */
  @Test
  void everyKernelAtSixtyFourLanesEqualsTheGoldenAndTheCycleFormula() {
    VectorDsp.Config config = sixtyFourLanes();
    try (Simulator sim = start(config)) {
      VectorDspDriver driver = new VectorDspDriver(sim, config, DspMath.DEFAULT);
      for (DspKernel kernel : DspKernel.values()) {
        for (int len : new int[] {1, 64, 100, 300}) {
          int l = kernel == DspKernel.ROPE ? 2 * len : len;
          for (int style = 0; style < 3; style++) {
            check(driver, kernel, l, 64, DspGolden.inputs(kernel, l, style, 13L * len + style), config.pipeline());
          }
        }
      }
    }
  }

  @Test
  void functionsMatchOnEveryFp16Input() {
    VectorDsp.Config config = new VectorDsp.Config(16, 512, 256);
    int chunk = 4096;
    try (Simulator sim = start(config)) {
      VectorDspDriver driver = new VectorDspDriver(sim, config, DspMath.DEFAULT);
      for (DspKernel kernel : new DspKernel[] {DspKernel.EXP, DspKernel.RECIPROCAL, DspKernel.RSQRT, DspKernel.SILU,
          DspKernel.GELU}) {
        for (int base = 0; base < 65536; base += chunk) {
          short[] x = new short[chunk];
          for (int i = 0; i < chunk; i++) {
            x[i] = (short) (base + i);
          }
          check(driver, kernel, chunk, 16, new short[][] {x});
        }
      }
    }
  }

  @Test
  void aTableLargerThanTheDspHoldsIsRefusedWithTheLimit() {
    VectorDsp.Config config = new VectorDsp.Config(1, 16, 64, 8, 2);
    try (Simulator sim = start(config)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> new VectorDspDriver(sim, config, DspMath.DEFAULT));
      assertEquals("table 2 has 12 segments of degree 2; the DSP holds tableSegments = 8 of tableDegree = 2",
          e.getMessage());
    }
  }

  @Test
  void aKernelThatDoesNotFitIsRefusedWithTheLimit() {
    VectorDsp.Config config = new VectorDsp.Config(1, 16, 64);
    try (Simulator sim = start(config)) {
      VectorDspDriver driver = new VectorDspDriver(sim, config, DspMath.DEFAULT);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> driver.run(DspKernel.RESIDUAL, 16, EPS, DspMath.DEFAULT, new short[2][16]));
      assertEquals("residual at len 16 needs 48 buffer rows; the DSP has rows = 16", e.getMessage());
    }
  }
}
