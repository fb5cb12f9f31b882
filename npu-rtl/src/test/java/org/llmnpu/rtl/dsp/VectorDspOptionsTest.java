package org.llmnpu.rtl.dsp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.isa.dsp.DspCycleFormula;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspKernels;
import org.llmnpu.isa.dsp.DspMath;

/**
 * The {@code vector-dsp} RTL built with {@code fma32} runs every kernel compiled with
 * {@link DspKernels.Options} (FMA32 fusion, row interleaving; lengths of 1, 3, 8 and 25 rows) bit for bit equal to the numerics golden kernel, with
 * one to four execute stages (K rows per iteration on K stages), and its cycle counter equals
 * {@link DspCycleFormula} for those options; also with each lane's pipelined units on clock gates of their own,
 * {@code checked} (a register that changes while its enable is low stops the simulation; the model
 * {@code DspConformanceTest} builds for its gated 4-stage case).
 */
class VectorDspOptionsTest {
  static final float EPS = DspProgramTest.EPS;

  @ParameterizedTest(name = "{0} execute stage(s), fma32 {1}, interleave {2} ({3} rows), pipelined units' gates {4}")
  @CsvSource({"1, true, false, 2, off", "2, true, false, 2, off", "1, false, true, 2, off", "2, false, true, 2, off",
      "2, true, true, 2, off", "3, false, true, 3, off", "4, true, true, 4, off", "4, true, true, 4, checked",
      "4, false, false, 2, checked"})
  void everyKernelWithTheOptionsEqualsTheGoldenAndTheFormula(int executeStages, boolean fma32, boolean interleave,
      int rows, String gating) {
    VectorDsp.Config config = VectorDspTest.eightLanes(executeStages, true)
        .withPipeGating(org.llmnpu.hdl.ClockGating.parse("gating", gating));
    DspKernels.Options options = new DspKernels.Options(fma32, interleave, rows);
    try (Simulator sim = VectorDspTest.start(config)) {
      VectorDspDriver driver = new VectorDspDriver(sim, config, DspMath.DEFAULT);
      for (DspKernel kernel : DspKernel.values()) {
        for (int len : new int[] {1, 24, 64, 200}) {
          int l = kernel == DspKernel.ROPE ? 2 * len : len;
          for (int style = 0; style < 3; style++) {
            short[][] in = DspGolden.inputs(kernel, l, style, 13L * len + style);
            VectorDspDriver.Run run = driver.run(kernel, l, EPS, DspMath.DEFAULT, in, options);
            short[][] want = DspGolden.expected(kernel, in, EPS, 8);
            for (int op = 0; op < want.length; op++) {
              assertArrayEquals(want[op], run.outputs()[op], kernel.cliName() + " len " + l + " " + options);
            }
            assertEquals(DspCycleFormula.cycles(kernel, l, 8, config.pipeline(), options), run.cycles(),
                kernel.cliName() + " cycles at len " + l + ", " + config.pipeline() + ", " + options);
          }
        }
      }
    }
  }

  /**
   * RMSNorm with its sum of squares rotated ({@link DspKernels.Options#rotateSumOfSquares()}, the lowering's program on
   * a pipelined DSP) on the four-stage RTL as the NPU builds it (no {@code fma32}): bit for bit the golden, cycles =
   * {@link DspCycleFormula} (whole rows of 3, 8 and 25 rows rotated; one row and a ragged length as compiled).
   */
  @org.junit.jupiter.api.Test
  void rmsNormWithItsSumOfSquaresRotatedEqualsTheGoldenAndTheFormulaOnTheRtl() {
    VectorDsp.Config config = VectorDspTest.eightLanes(4, false);
    DspKernels.Options options = DspKernels.Options.forPipeline(config.pipeline(), false).withSumOfSquaresRotated(true);
    try (Simulator sim = VectorDspTest.start(config)) {
      VectorDspDriver driver = new VectorDspDriver(sim, config, DspMath.DEFAULT);
      for (int len : new int[] {1, 24, 64, 172, 200}) {
        for (int style = 0; style < 3; style++) {
          short[][] in = DspGolden.inputs(DspKernel.RMSNORM, len, style, 29L * len + style);
          VectorDspDriver.Run run = driver.run(DspKernel.RMSNORM, len, EPS, DspMath.DEFAULT, in, options);
          assertArrayEquals(DspGolden.expected(DspKernel.RMSNORM, in, EPS, 8)[0], run.outputs()[0], "len " + len);
          assertEquals(DspCycleFormula.cycles(DspKernel.RMSNORM, len, 8, config.pipeline(), options), run.cycles(),
              "rmsnorm cycles at len " + len);
        }
      }
    }
  }

  @org.junit.jupiter.api.Test
  void badStageAndRowCountsAreRefusedNamingTheParameter() {
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> new VectorDsp.Config(8, 512, 256, 12, 2, 5));
    assertEquals("executeStages must be 1, 2, 3 or 4, got 5", e.getMessage());
    e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> new DspKernels.Options(false, true, 5));
    assertEquals("interleaveRows must be 2, 3 or 4, got 5", e.getMessage());
    e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> org.llmnpu.isa.dsp.DspPipeline.ofExecuteStages(0));
    assertEquals("executeStages must be 1, 2, 3 or 4, got 0", e.getMessage());
  }
}
