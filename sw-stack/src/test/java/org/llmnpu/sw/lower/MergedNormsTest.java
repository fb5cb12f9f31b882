package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspPipeline;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.numerics.fp16.Fp16;

/**
 * {@link DspRoutines#mergedNorms}: two tokens' RMSNorms (the weight shared) as one program, loops merged with their
 * carried sums of squares ({@link DspLoopRegisters}) and reordered ({@link DspListSchedule}), leave the buffer as the
 * two kernels run one after the other do, bit for bit, on the golden DSP; the golden counts the merged program's
 * static cycles, fewer than the two kernels joined where the merge is taken. Shapes: LLaMA-2-7B's dim 4096 on
 * edge-64's DSP (64 lanes, four execute stages, 512 words), stories260K's 64 and ragged ones, a two-stage DSP.
 */
class MergedNormsTest {
  @ParameterizedTest
  @CsvSource({"4096,64,4,true", "4096,64,2,true", "288,64,4,true", "172,16,4,true", "64,16,4,false", "100,8,4,true",
      "768,32,4,true"})
  void pairBitExactAndFewerCycles(int dim, int lanes, int stages, boolean merges) {
    var dsp = new MachineParams.DspParams(lanes, 4096, 512, 12, 2, 1L << 32, stages);
    DspPipeline pipe = dsp.pipeline();
    DspRoutines r = new DspRoutines(dsp, 1e-5f);
    int v = r.rows(dim);
    int gamma = 10 * v;
    List<DspProgram> norms = List.of(
        r.kernel(DspKernel.RMSNORM, dim, new int[] {2 * v, gamma}, new int[] {3 * v}),
        r.kernel(DspKernel.RMSNORM, dim, new int[] {7 * v, gamma}, new int[] {8 * v}));
    List<DspProgram> runs = r.mergedNorms(norms);
    if (merges) {
      assertEquals(1, runs.size(), "one run");
      assertTrue(runs.get(0).name().startsWith("merged"), runs.get(0).name());
      assertTrue(runs.get(0).size() <= 512);
    }
    Random rnd = new Random(dim * 7L + lanes + stages);
    short[] buffer = new short[11 * v * lanes];
    for (int e = 0; e < buffer.length; e++) {
      buffer[e] = Fp16.fromDouble(rnd.nextGaussian() * (e < 10 * v * lanes ? 3 : 0.5));
    }
    long[] separate = new long[1];
    long[] merged = new long[1];
    short[] expected = DspListScheduleTest.run(lanes, 11 * v, pipe, buffer, norms, separate);
    assertArrayEquals(expected, DspListScheduleTest.run(lanes, 11 * v, pipe, buffer, runs, merged));
    long joined = DspChain.join(norms).cycles(pipe);
    long statics = runs.stream().mapToLong(p -> p.cycles(pipe)).sum();
    assertEquals(statics, merged[0], "the golden counts the static cycles");
    System.out.println("XXX " + dim + " " + lanes + " " + stages + ": " + joined + " -> " + statics + " words " + DspChain.join(norms).size() + " -> " + runs.stream().mapToInt(DspProgram::size).sum() + " " + separate[0]);
    if (merges) {
      assertTrue(statics < joined, statics + " cycles against " + joined + " joined");
    }
  }
}
