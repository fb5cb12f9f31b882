package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
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
 * Attention's scale folded into SoftMax and a head group merged into one program ({@link AttentionSoftmax}) leave the
 * DSP buffer bit for bit as the separate scale and SoftMax runs do (ragged lengths, one row to the stated NPU's 256
 * slots on 32 lanes, one to three heads, scores with ties, large magnitudes and −∞-like minima), the golden DSP counts
 * the programs' static cycles, and on the stated NPU's shape the group runs in fewer runs and cycles.
 */
class AttentionSoftmaxTest {
  private static final int ROWS = 512;

  @ParameterizedTest
  @CsvSource({"16,1,1", "16,16,3", "16,17,2", "16,100,3", "16,172,1", "32,5,3", "32,64,3", "32,128,3", "32,129,2",
      "32,256,3", "32,256,1", "4,37,3"})
  void mergedGroupEqualsSeparateRuns(int lanes, int len, int group) {
    var dsp = new MachineParams.DspParams(lanes, ROWS, 256, 12, 2, 1L << 32, 4);
    DspRoutines r = new DspRoutines(dsp, 1e-5f);
    int rows = r.rows(len);
    List<AttentionSoftmax.Head> heads = new ArrayList<>();
    List<DspProgram> separate = new ArrayList<>();
    short c = Fp16.fromDouble(Math.scalb(1.0, -7) / Math.sqrt(64));
    for (int i = 0; i < group; i++) {
      int base = 1 + rows + 3 * rows * i;
      heads.add(new AttentionSoftmax.Head(base, 0, 1, c, base + rows, base + 2 * rows));
      separate.add(r.scale(base, len, 0, 1, c, -1, base + rows));
      separate.add(r.kernel(DspKernel.SOFTMAX, len, new int[] {base + rows}, new int[] {base + 2 * rows}));
    }
    List<DspProgram> fusedRuns = new ArrayList<>();
    for (AttentionSoftmax.Head h : heads) {
      fusedRuns.add(AttentionSoftmax.fused(h, len, lanes, 1e-5f));
    }
    List<DspProgram> merged = DspLoopMerge.mergeRuns(fusedRuns, dsp.programDepth());
    if (group > 1) {
      assertTrue(merged.size() < group, "some heads merge: " + merged.size() + " runs for " + group);
    }
    Random rnd = new Random(31L * len + lanes + group);
    for (int trial = 0; trial < 4; trial++) {
      short[] buffer = new short[ROWS * lanes];
      buffer[0] = Fp16.fromDouble(0.01 + rnd.nextDouble());
      for (int l = 1; l < lanes; l++) {
        buffer[l] = buffer[0];
      }
      for (int e = 0; e < rows * lanes; e++) {
        buffer[lanes + e] = Fp16.fromDouble(0.001 + rnd.nextDouble() * 0.05);
      }
      for (AttentionSoftmax.Head h : heads) {
        for (int e = 0; e < len; e++) {
          double v = switch (trial) {
            case 0 -> rnd.nextGaussian() * 2000;
            case 1 -> e % 3 == 0 ? 30000 : -30000;
            case 2 -> 7;
            default -> rnd.nextInt(65504) - 32752;
          };
          buffer[h.scores() * lanes + e] = Fp16.fromDouble(v);
        }
      }
      long[] a = new long[1];
      long[] b = new long[1];
      short[] expect = run(lanes, buffer, separate, a);
      short[] got = run(lanes, buffer, merged, b);
      assertArrayEquals(expect, got, "lanes " + lanes + " len " + len + " heads " + group + " trial " + trial);
      long cycles = merged.stream().mapToLong(p -> p.cycles(DspPipeline.FOUR_STAGE_EXECUTE)).sum();
      assertEquals(cycles, b[0], "the golden DSP counts the merged programs' static cycles");
    }
  }

  @ParameterizedTest
  @CsvSource({"64", "128", "256"})
  void statedNpuGroupTakesFewerRunsAndCycles(int len) {
    var dsp = new MachineParams.DspParams(32, 32768, 256, 12, 2, 1L << 32, 4);
    DspRoutines r = new DspRoutines(dsp, 1e-5f);
    HeadGroupRuns g = HeadGroupRuns.of(r, len, 3);
    List<DspProgram> oldRuns = DspChain.chain(g.before(), 256);
    List<DspProgram> newRuns = DspChain.chain(g.now(), 256);
    long oldCycles = oldRuns.stream().mapToLong(p -> p.cycles(dsp.pipeline())).sum();
    long newCycles = newRuns.stream().mapToLong(p -> p.cycles(dsp.pipeline())).sum();
    assertTrue(newRuns.size() < oldRuns.size() || newCycles < oldCycles,
        len + " slots: " + newRuns.size() + " runs " + newCycles + " cycles, before " + oldRuns.size() + " runs "
            + oldCycles + " cycles");
  }

  private static short[] run(int lanes, short[] buffer, List<DspProgram> programs, long[] cycles) {
    return DspListScheduleTest.run(lanes, ROWS, DspPipeline.FOUR_STAGE_EXECUTE, buffer, programs, cycles);
  }
}
