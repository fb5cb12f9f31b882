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
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspPipeline;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.numerics.fp16.Fp16;

/**
 * Attention's scale folded into SoftMax and a head group merged into one program ({@link AttentionSoftmax}) leave the
 * DSP buffer bit for bit as the separate scale and SoftMax runs do (ragged lengths, one row to the stated NPU's 256
 * slots on 32 lanes, one to three heads, scores with ties, large magnitudes and −∞-like minima), the golden DSP counts
 * the programs' static cycles, and on the stated NPU's shape the group runs in fewer runs and cycles. A group over one
 * row ({@link AttentionSoftmax#runsWithCodes}) runs its loops of one pass as straight-line code, in fewer cycles than
 * looped, its codes and scales those of the heads' own programs bit for bit.
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

  @ParameterizedTest
  @CsvSource({"64,1,3", "64,17,3", "64,64,3", "64,64,2", "64,65,3", "64,193,3", "16,16,3", "16,9,1", "16,33,2"})
  void oneRowGroupsRunStraightWithTheSameCodes(int lanes, int len, int group) {
    var dsp = new MachineParams.DspParams(lanes, 4096, 512, 12, 2, 1L << 32, 4);
    int rows = (len + lanes - 1) / lanes;
    short c = Fp16.fromDouble(Math.scalb(1.0, -7) / Math.sqrt(128));
    int codes = 2 + rows * 3 * group + 2 * rows;
    int bound = codes + rows * group + group;
    List<AttentionSoftmax.Head> heads = new ArrayList<>();
    List<DspQuantizer.Vector> vectors = new ArrayList<>();
    List<DspProgram> each = new ArrayList<>();
    for (int i = 0; i < group; i++) {
      int base = 2 + 2 * rows + 3 * rows * i;
      heads.add(new AttentionSoftmax.Head(base, 0, 2, c, base + rows, base + 2 * rows));
      vectors.add(new DspQuantizer.Vector(base + 2 * rows, len, 2 + rows, codes + rows * i, codes + rows * group + i));
      each.add(AttentionSoftmax.withCodes(heads.get(i), vectors.get(i), bound, len, lanes, 1e-5f));
    }
    List<DspProgram> runs = AttentionSoftmax.runsWithCodes(heads, vectors, bound, len, lanes, 1e-5f, dsp.pipeline(),
        512);
    boolean looped = runs.stream().anyMatch(p -> p.instructions().stream().anyMatch(i -> i.op() == DspOp.LOOP));
    assertEquals(rows > 1, looped, "loops of one pass run straight, longer ones stay");
    long cycles = runs.stream().mapToLong(p -> p.cycles(dsp.pipeline())).sum();
    List<DspProgram> loopedRuns = DspLoopMerge.mergeRuns(each, 512).stream()
        .map(p -> DspListSchedule.schedule(p, dsp.pipeline())).toList();
    long loopedCycles = loopedRuns.stream().mapToLong(p -> p.cycles(dsp.pipeline())).sum();
    if (rows == 1) {
      assertTrue(cycles < loopedCycles, cycles + " cycles straight against " + loopedCycles + " looped");
    }
    Random rnd = new Random(len * 131L + group + lanes);
    for (int trial = 0; trial < 3; trial++) {
      short[] buffer = new short[(bound + 2) * lanes];
      for (int e = 0; e < lanes; e++) {
        buffer[e] = Fp16.fromDouble(0.01 + rnd.nextDouble());
        buffer[bound * lanes + e] = Fp16.fromDouble(40);
        buffer[(bound + 1) * lanes + e] = Fp16.fromDouble(0.003);
      }
      for (int e = 0; e < 2 * rows * lanes; e++) {
        buffer[2 * lanes + e] = Fp16.fromDouble(0.001 + rnd.nextDouble() * 0.05);
      }
      for (int i = 0; i < group; i++) {
        for (int e = 0; e < len; e++) {
          double v = switch (trial) {
            case 0 -> rnd.nextGaussian() * 2000;
            case 1 -> e % 3 == i ? 30000 : -30000;
            default -> rnd.nextInt(65504) - 32752;
          };
          buffer[(2 + 2 * rows + 3 * rows * i) * lanes + e] = Fp16.fromDouble(v);
        }
      }
      long[] golden = new long[1];
      assertArrayEquals(DspListScheduleTest.run(lanes, bound + 2, dsp.pipeline(), buffer, each, new long[1]),
          DspListScheduleTest.run(lanes, bound + 2, dsp.pipeline(), buffer, runs, golden),
          lanes + " lanes, " + len + " slots, " + group + " heads, trial " + trial);
      assertEquals(cycles, golden[0], "the golden DSP counts the static cycles");
    }
  }

  private static short[] run(int lanes, short[] buffer, List<DspProgram> programs, long[] cycles) {
    return DspListScheduleTest.run(lanes, ROWS, DspPipeline.FOUR_STAGE_EXECUTE, buffer, programs, cycles);
  }
}
