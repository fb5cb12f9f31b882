package org.llmnpu.rtl.dsp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.dsp.DspCycleFormula;
import org.llmnpu.isa.dsp.DspInterpreter;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspKernels;
import org.llmnpu.isa.dsp.DspLayout;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspPipeline;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * The programs compiled with {@link DspKernels.Options} equal the numerics golden kernels bit for
 * bit in the instruction-set interpreter (every kernel, ragged and exact lengths, 1, 8 and 16
 * lanes, three input styles; RMSNorm's sum of squares rotated or not), and for each pipeline the interpreter's
 * cycles, the program's static count and {@link DspCycleFormula} agree.
 */
class DspKernelOptionsTest {
  static final float EPS = DspProgramTest.EPS;
  static final List<DspKernels.Options> OPTIONS = List.of(new DspKernels.Options(true, false),
      new DspKernels.Options(false, true), new DspKernels.Options(true, true),
      new DspKernels.Options(false, false).withSumOfSquaresRotated(true),
      new DspKernels.Options(false, true).withSumOfSquaresRotated(true));

  /** Runs the program in the interpreter, checks its cycles against the formula, returns the outputs. */
  static short[][] run(DspKernel kernel, int len, int lanes, short[][] in, DspKernels.Options options,
      DspPipeline pipeline) {
    DspLayout layout = new DspLayout(kernel, len, lanes);
    DspProgram program = DspKernels.compile(kernel, len, lanes, EPS, DspMath.DEFAULT, options);
    DspInterpreter dsp = new DspInterpreter(lanes, layout.totalRows(), DspMath.DEFAULT).fma32(options.fma32())
        .pipeline(pipeline);
    for (int op = 0; op < in.length; op++) {
      for (int i = 0; i < in[op].length; i++) {
        dsp.write(layout.inputBase(op) * lanes + i, in[op][i]);
      }
    }
    dsp.run(program);
    String name = program.name() + " " + options + " " + pipeline;
    assertEquals(program.cycles(pipeline), dsp.cycles(), "static cycle count of " + name);
    assertEquals(DspCycleFormula.cycles(kernel, len, lanes, pipeline, options), dsp.cycles(), "formula of " + name);
    short[][] out = new short[kernel.outputs().size()][kernel.outputLength(len)];
    for (int op = 0; op < out.length; op++) {
      for (int i = 0; i < out[op].length; i++) {
        out[op][i] = dsp.read(layout.outputBase(op) * lanes + i);
      }
    }
    return out;
  }

  @Test
  void everyKernelWithEveryOptionEqualsTheGolden() {
    for (DspKernels.Options options : OPTIONS) {
      for (DspPipeline pipeline : DspPipeline.values()) {
        check(options, pipeline);
      }
    }
    // K rows per iteration on K execute stages
    for (DspPipeline pipeline : List.of(DspPipeline.THREE_STAGE_EXECUTE, DspPipeline.FOUR_STAGE_EXECUTE)) {
      for (boolean fma32 : new boolean[] {false, true}) {
        check(DspKernels.Options.forPipeline(pipeline, fma32), pipeline);
      }
      check(DspKernels.Options.forPipeline(pipeline, false).withSumOfSquaresRotated(true), pipeline);
    }
  }

  private static void check(DspKernels.Options options, DspPipeline pipeline) {
    for (DspKernel kernel : DspKernel.values()) {
      for (int lanes : new int[] {1, 8, 16}) {
        for (int len : new int[] {1, 7, 8, 24, 33, 130}) {
          int l = kernel == DspKernel.ROPE ? 2 * len : len;
          for (int style = 0; style < 3; style++) {
            short[][] in = DspGolden.inputs(kernel, l, style, 37L * len + style + lanes);
            short[][] want = DspGolden.expected(kernel, in, EPS, lanes);
            short[][] got = run(kernel, l, lanes, in, options, pipeline);
            for (int op = 0; op < want.length; op++) {
              assertArrayEquals(want[op], got[op], kernel + " len " + l + " lanes " + lanes + " style " + style
                  + " " + options + " " + pipeline);
            }
          }
        }
      }
    }
  }

  @Test
  void rmsNormSumOfSquaresIsRotatedOverWholeRowsOfThreeOrMoreWithoutFma32() {
    DspKernels.Options four = DspKernels.Options.forPipeline(DspPipeline.FOUR_STAGE_EXECUTE, false);
    for (int len : new int[] {8, 16, 24, 33, 130, 4096}) {
      boolean whole = len % 8 == 0 && len / 8 >= 3;
      DspProgram plain = DspKernels.compile(DspKernel.RMSNORM, len, 8, EPS, DspMath.DEFAULT, four);
      DspProgram rotated = DspKernels.compile(DspKernel.RMSNORM, len, 8, EPS, DspMath.DEFAULT,
          four.withSumOfSquaresRotated(true));
      assertEquals(whole, rotated.name().endsWith("(sum of squares rotated)"), rotated.name());
      assertEquals(whole ? plain.size() + 8 : plain.size(), rotated.size(), rotated.name());
      assertEquals(whole ? 4 - 5L * (len / 8) : 0, rotated.cycles(DspPipeline.FOUR_STAGE_EXECUTE)
          - plain.cycles(DspPipeline.FOUR_STAGE_EXECUTE), rotated.name());
    }
    // with fma32 the square and the add are one instruction: nothing to rotate
    DspKernels.Options fused = DspKernels.Options.forPipeline(DspPipeline.FOUR_STAGE_EXECUTE, true);
    assertEquals(DspKernels.compile(DspKernel.RMSNORM, 64, 8, EPS, DspMath.DEFAULT, fused),
        DspKernels.compile(DspKernel.RMSNORM, 64, 8, EPS, DspMath.DEFAULT, fused.withSumOfSquaresRotated(true)));
  }

  @Test
  void theDefaultOptionsCompileTheDefaultPrograms() {
    for (DspKernel kernel : DspKernel.values()) {
      int len = kernel == DspKernel.ROPE ? 96 : 48;
      assertEquals(DspKernels.compile(kernel, len, 8, EPS, DspMath.DEFAULT),
          DspKernels.compile(kernel, len, 8, EPS, DspMath.DEFAULT, DspKernels.Options.DEFAULT));
    }
  }
}
