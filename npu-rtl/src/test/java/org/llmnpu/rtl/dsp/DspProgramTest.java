package org.llmnpu.rtl.dsp;

import org.llmnpu.isa.dsp.DspInterpreter;
import org.llmnpu.isa.dsp.DspTable;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspLayout;
import org.llmnpu.isa.dsp.DspKernels;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspCycleFormula;
import org.llmnpu.isa.dsp.DspPipeline;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.llmnpu.numerics.fp16.Fp16;
import org.llmnpu.numerics.vector.Activations;
import org.llmnpu.numerics.vector.Fp16Math;
import org.llmnpu.numerics.vector.SegmentedPolynomial;

/**
 * The compiled kernels, run by the instruction-set interpreter, equal the numerics golden kernels
 * bit for bit (all kernels, ragged and exact lengths, 1, 8 and 16 lanes, corner-case inputs); the
 * program's cycle count equals {@link DspCycleFormula}; {@link DspMath#DEFAULT} equals numerics.
 */
class DspProgramTest {
  static final float EPS = 1e-5f;

  static short[][] run(DspKernel kernel, int len, int lanes, short[][] in) {
    DspLayout layout = new DspLayout(kernel, len, lanes);
    DspProgram program = DspKernels.compile(kernel, len, lanes, EPS, DspMath.DEFAULT);
    DspInterpreter dsp = new DspInterpreter(lanes, layout.totalRows(), DspMath.DEFAULT);
    for (int op = 0; op < in.length; op++) {
      for (int i = 0; i < in[op].length; i++) {
        dsp.write(layout.inputBase(op) * lanes + i, in[op][i]);
      }
    }
    dsp.run(program);
    assertEquals(program.cycles(), dsp.cycles(), "static cycle count of " + program.name());
    assertEquals(DspCycleFormula.cycles(kernel, len, lanes), dsp.cycles(), "cycle formula of " + program.name());
    // the two-stage-execute DSP: stalls counted the same way by the program, the interpreter and the formula
    assertEquals(DspCycleFormula.cycles(kernel, len, lanes, DspPipeline.TWO_STAGE_EXECUTE),
        program.cycles(DspPipeline.TWO_STAGE_EXECUTE), "two-stage cycle formula of " + program.name());
    short[][] out = new short[kernel.outputs().size()][kernel.outputLength(len)];
    for (int op = 0; op < out.length; op++) {
      for (int i = 0; i < out[op].length; i++) {
        out[op][i] = dsp.read(layout.outputBase(op) * lanes + i);
      }
    }
    return out;
  }

  @Test
  void everyKernelEqualsTheGoldenOnRaggedAndExactLengths() {
    int[] lengths = {1, 7, 8, 33, 128, 130};
    for (DspKernel kernel : DspKernel.values()) {
      for (int lanes : new int[] {1, 8, 16}) {
        for (int len : lengths) {
          int l = kernel == DspKernel.ROPE ? 2 * len : len;
          for (int style = 0; style < 3; style++) {
            short[][] in = DspGolden.inputs(kernel, l, style, 31L * len + style + lanes);
            short[][] want = DspGolden.expected(kernel, in, EPS, lanes);
            short[][] got = run(kernel, l, lanes, in);
            for (int op = 0; op < want.length; op++) {
              assertArrayEquals(want[op], got[op], kernel + " len " + l + " lanes " + lanes + " style " + style);
            }
          }
        }
      }
    }
  }

  @Test
  void functionsEqualTheGoldenOnEveryFp16Input() {
    short[] all = new short[65536];
    for (int i = 0; i < all.length; i++) {
      all[i] = (short) i;
    }
    for (DspKernel kernel : new DspKernel[] {DspKernel.EXP, DspKernel.RECIPROCAL, DspKernel.RSQRT, DspKernel.SILU,
        DspKernel.GELU}) {
      short[][] want = DspGolden.expected(kernel, new short[][] {all}, EPS, 8);
      assertArrayEquals(want[0], run(kernel, all.length, 8, new short[][] {all})[0], kernel.cliName());
    }
  }

  @Test
  void defaultMathEqualsTheNumericsConstantsAndTables() {
    DspMath m = DspMath.DEFAULT;
    assertEquals(Fp16Math.LOG2E & 0xFFFF, m.log2e());
    assertEquals(Fp16Math.LN2_HI & 0xFFFF, m.ln2Hi());
    assertEquals(Fp16Math.LN2_LO & 0xFFFF, m.ln2Lo());
    assertEquals(Activations.GELU_C2 & 0xFFFF, m.geluC2());
    assertEquals(Activations.GELU_C3 & 0xFFFF, m.geluC3());
    assertTable(Fp16Math.EXP_TABLE, m.exp());
    assertTable(Fp16Math.RECIPROCAL_TABLE, m.reciprocal());
    assertTable(Fp16Math.RSQRT_TABLE, m.rsqrt());
    assertEquals(0x3C00, Fp16.ONE);
  }

  private static void assertTable(SegmentedPolynomial want, DspTable got) {
    assertEquals(want.segments(), got.segments());
    for (int s = 0; s < want.segments(); s++) {
      assertEquals(want.start(s) & 0xFFFF, got.starts()[s], "start " + s);
      for (int k = 0; k <= want.degree(s); k++) {
        assertEquals(want.coefficient(s, k) & 0xFFFF, got.coefficients()[s][k], "segment " + s + " coefficient " + k);
      }
    }
  }

  @Test
  void everyDspKernelHasItsGoldenKernelInNumerics() {
    for (DspKernel kernel : DspKernel.values()) {
      assertEquals(kernel.cliName(), org.llmnpu.numerics.vector.VectorKernel.byName(kernel.cliName()).cliName());
    }
    assertEquals(DspKernel.values().length, org.llmnpu.numerics.vector.VectorKernel.values().length);
  }

  @Test
  void badArgumentsNameTheParameter() {
    assertThrows(IllegalArgumentException.class, () -> DspKernels.compile(DspKernel.ROPE, 7, 8, EPS, DspMath.DEFAULT));
    assertThrows(IllegalArgumentException.class, () -> DspKernels.compile(DspKernel.SOFTMAX, 0, 8, EPS, DspMath.DEFAULT));
    assertThrows(IllegalArgumentException.class, () -> DspKernels.compile(DspKernel.RMSNORM, 8, 8, 0f, DspMath.DEFAULT));
    assertThrows(IllegalArgumentException.class, () -> DspKernels.compile(DspKernel.SOFTMAX, 8, 6, EPS, DspMath.DEFAULT));
    assertThrows(IllegalArgumentException.class, () -> DspKernel.byName("softmaxx"));
  }
}
