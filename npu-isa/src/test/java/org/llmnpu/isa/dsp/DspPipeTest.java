package org.llmnpu.isa.dsp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which unit computes each op, and the interpreter's count of the operations each pipelined unit issued. */
class DspPipeTest {
  @Test
  void everyOpIsInAtMostOnePipeAndThePipesHoldTheRoundedLateOps() {
    for (DspOp op : DspOp.values()) {
      long in = java.util.Arrays.stream(DspPipe.values()).filter(p -> p.ops().contains(op)).count();
      assertTrue(in <= 1, op + " in " + in + " pipes");
      // the ops rounded in the last execute stage are exactly those of the pipelined units
      assertEquals(op.roundsLate(), DspPipe.of(op).isPresent(), op.toString());
    }
    assertEquals("dspFp16Cycles", DspPipe.FP16.cyclesKey());
    assertEquals("dspConvertCycles", DspPipe.CONVERT.cyclesKey());
  }

  @Test
  void theInterpreterCountsEachPipesOperationsOfARun() {
    List<DspInstruction> code = new ArrayList<>();
    DspOp[] ops = {DspOp.ADD16, DspOp.MUL16, DspOp.FMA16, DspOp.WIDEN, DspOp.NARROW, DspOp.TOINT, DspOp.MUL32,
        DspOp.IADD, DspOp.LI, DspOp.EQ16};
    for (int i = 0; i < ops.length; i++) {
      code.add(new DspInstruction(ops[i], i + 1, 0, 0, 0, false, 0, 0));
    }
    code.add(new DspInstruction(DspOp.HALT, 0, 0, 0, 0, false, 0, 0));
    DspInterpreter dsp = new DspInterpreter(2, 16, DspMath.DEFAULT).pipeline(DspPipeline.ofExecuteStages(4));
    assertTrue(dsp.run(code, 1000));
    // FP16: ADD16, MUL16, EQ16; FMA16; FP32: MUL32; CONVERT: WIDEN, NARROW, TOINT; no FMA32
    assertArrayEquals(new long[] {3, 1, 1, 3, 0}, dsp.issuedByPipe());
    assertEquals(ops.length + 1, dsp.issued());
    // a second run starts from zero
    assertTrue(dsp.run(List.of(code.get(0), code.get(code.size() - 1)), 1000));
    assertArrayEquals(new long[] {1, 0, 0, 0, 0}, dsp.issuedByPipe());
  }
}
