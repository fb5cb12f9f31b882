package org.llmnpu.cosim.blocks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.llmnpu.cosim.WaveCapture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.dsp.DspKernel;

/**
 * One Vector DSP kernel on the RTL against the golden kernel: bit-exact, within its stated ULP bound of double
 * precision, the cycles of the formula; operands recorded from the software stack's model compared with its FP32.
 */
class DspCosimRunTest {

  @ParameterizedTest(name = "{0} len {1} lanes {2} stages {3}")
  // two kernels and lane counts: the run's path (sizing, build, run, compare, formula); every kernel at 1, 8 and 16
  // lanes is checked against the golden in npu-rtl's VectorDspTest; the default 4 execute stages (interleaved, a
  // tail of rows past the last group, a ragged last row) and the one-stage DSP. The 8-lane 4-stage runs, these two and
  // the model's softmax over 40 positions below, all fit the 16-row DSP that DspCosimRun sizes for them: one model
  // (until 2026-12-07 softmax 128 and rmsnorm 72 took a 32-row one, a build of its own)
  @CsvSource({"softmax, 52, 8, 4", "rope, 64, 4, 4", "rmsnorm, 36, 8, 4", "silu, 40, 8, 1"})
  void kernelIsBitExactWithinItsBoundAndTakesTheFormulaCycles(String kernel, int len, int lanes, int stages) {
    DspCosimRun.Outcome o = DspCosimRun.run(DspKernel.byName(kernel), len, lanes, stages, 1e-5f, 1,
        WaveCapture.none());
    assertEquals(0, o.mismatches(), o.toString());
    assertEquals(o.formulaCycles(), o.rtlCycles(), o.toString());
    assertTrue(o.maxUlp() <= o.bound(), o.toString());
    assertTrue(o.maxUlp() > 0, "a real comparison: " + o);
  }

  @Test
  void modelActivationsDriveTheDspAndAreComparedWithTheSoftwareStack() {
    DspModelInputs in = DspModelInputs.of(DspKernel.SOFTMAX, "stories260K", 40, 1, 1);
    assertEquals(40, in.len(), "softmax over the 40 positions");
    assertTrue(in.description().contains("attention scores of head 0"), in.description());
    assertTrue(in.description().contains("stories260K model (trained weights)"), in.description());
    DspCosimRun.Outcome o = DspCosimRun.run(DspKernel.SOFTMAX, in.len(), 8, 4, in.eps(), in.operands(), in.software(),
        WaveCapture.none());
    assertEquals(0, o.mismatches(), o.toString());
    assertTrue(o.maxUlpVsSoftware() > 0 && o.maxUlpVsSoftware() < 32, o.toString());
  }
}
