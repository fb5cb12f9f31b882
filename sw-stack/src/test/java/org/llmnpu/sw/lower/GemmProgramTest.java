package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.model.ModelConfig;

/**
 * {@link GemmProgram} on an NPU with more external memory than a JVM array holds (edge-64 has 4 GiB): its image is
 * bounded to the program's data ({@link MemoryImage#dataImageLength}), and the golden run of stories260K's prefill
 * GEMMs (ragged: a 172-wide FFN, GQA K/V, 5 tokens), INT8 and with INT4 weights, gives the results and every counter
 * of the same NPU with 16 MiB.
 */
class GemmProgramTest {
  @Test
  void aGoldenRunOnFourGibibytesEqualsTheSameRunOnSixteenMebibytes() {
    MachineParams small = NpuTargets.defaultNpu();
    MachineParams big = small.withExtMemBytes(4L << 30);
    List<DecoderGemms.Gemm> gemms = DecoderGemms.distinct(DecoderGemms.phase(ModelConfig.stories260K(), 5, 5));
    for (boolean int4 : new boolean[] {false, true}) {
      GemmProgram.Built a = GemmProgram.build(small, gemms, int4, 7);
      GemmProgram.Built b = GemmProgram.build(big, gemms, int4, 7);
      assertEquals(small.extMemBytes(), a.image().length, "an NPU an array holds keeps its whole memory");
      assertTrue(b.image().length < a.image().length && b.image().length % big.lineBytes() == 0,
          "bounded image of " + b.image().length + " bytes");
      assertArrayEquals(a.program().bytes(), b.program().bytes());
      assertArrayEquals(Arrays.copyOf(a.image(), b.image().length), b.image(), "the same operands");
      IsaSimulator.Result ra = IsaSimulator.run(small, a.image(), 0);
      IsaSimulator.Result rb = IsaSimulator.run(big, b.image(), 0);
      assertEquals(ErrorCause.NONE, rb.error());
      assertArrayEquals(Arrays.copyOf(ra.memory(), rb.memory().length), rb.memory(), "results, int4 " + int4);
      assertArrayEquals(ra.counters(), rb.counters(), "counters, int4 " + int4);
      assertEquals(b.macs(), rb.counter(Counter.MACS));
    }
  }
}
