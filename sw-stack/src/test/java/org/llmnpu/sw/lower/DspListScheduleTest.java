package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspAssembler;
import org.llmnpu.isa.dsp.DspInterpreter;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspPipeline;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.numerics.fp16.Fp16;

/**
 * {@link DspListSchedule} reorders without changing results: random programs dense in dependences (few registers and
 * rows, masked ops under changing lengths, stores and loads of the same rows, lane shifts, a loop carrying values)
 * leave the buffer and every register as the original does on the golden DSP; a head group's merged SoftMax with
 * codes ({@link AttentionSoftmax#runsWithCodes}'s programs before the reordering) on edge-64's DSP, ragged lengths,
 * equal bit for bit; the golden counts the static cycles, never more than the original's, fewer on 3 heads × 193.
 */
class DspListScheduleTest {
  private static final int LANES = 8;
  private static final int ROWS = 16;

  @Test
  void randomProgramsKeepEveryValue() {
    Random rnd = new Random(2026_12_06L);
    int fewer = 0;
    for (int trial = 0; trial < 300; trial++) {
      DspProgram p = random(rnd);
      for (DspPipeline pipe : List.of(DspPipeline.TWO_STAGE_EXECUTE, DspPipeline.FOUR_STAGE_EXECUTE)) {
        DspProgram s = DspListSchedule.schedule(p, pipe);
        assertEquals(p.size(), s.size());
        short[] buffer = new short[ROWS * LANES];
        for (int e = 0; e < buffer.length; e++) {
          buffer[e] = Fp16.fromDouble(rnd.nextGaussian() * 4);
        }
        long[] c0 = new long[1];
        long[] c1 = new long[1];
        assertArrayEquals(run(LANES, ROWS, pipe, buffer, List.of(withRegisters(p)), c0),
            run(LANES, ROWS, pipe, buffer, List.of(withRegisters(s)), c1), "trial " + trial + " " + pipe);
        long[] golden = new long[1];
        run(LANES, ROWS, pipe, buffer, List.of(s), golden);
        assertEquals(s.cycles(pipe), golden[0], "the golden counts the static cycles");
        assertTrue(s.cycles(pipe) <= p.cycles(pipe));
        fewer += s.cycles(pipe) < p.cycles(pipe) ? 1 : 0;
      }
    }
    assertTrue(fewer > 100, fewer + " of 600 reordered to fewer cycles");
  }

  @ParameterizedTest
  @CsvSource({"1,3", "17,3", "64,2", "65,3", "193,3", "256,3", "100,1"})
  void mergedSoftmaxWithCodesUnchanged(int len, int group) {
    var dsp = new MachineParams.DspParams(64, 4096, 512, 12, 2, 1L << 32, 4);
    DspRoutines r = new DspRoutines(dsp, 1e-5f);
    int rows = r.rows(len);
    short c = Fp16.fromDouble(Math.scalb(1.0, -7) / Math.sqrt(128));
    int codes = 2 + rows * 3 * group + 2 * rows;
    int bound = codes + rows * group + group;
    List<DspProgram> each = new ArrayList<>();
    for (int i = 0; i < group; i++) {
      int base = 2 + 2 * rows + 3 * rows * i;
      AttentionSoftmax.Head h = new AttentionSoftmax.Head(base, 0, 2, c, base + rows, base + 2 * rows);
      each.add(AttentionSoftmax.withCodes(h, new DspQuantizer.Vector(base + 2 * rows, len, 2 + rows, codes + rows * i,
          codes + rows * group + i), bound, len, 64, 1e-5f));
    }
    List<DspProgram> merged = DspLoopMerge.mergeRuns(each, 512);
    Random rnd = new Random(len * 31L + group);
    short[] buffer = new short[(bound + 2) * 64];
    for (int e = 0; e < 64; e++) {
      buffer[e] = Fp16.fromDouble(0.01 + rnd.nextDouble());
      buffer[bound * 64 + e] = Fp16.fromDouble(40);
      buffer[(bound + 1) * 64 + e] = Fp16.fromDouble(0.003);
    }
    for (int e = 0; e < 2 * rows * 64; e++) {
      buffer[2 * 64 + e] = Fp16.fromDouble(0.001 + rnd.nextDouble() * 0.05);
    }
    for (int i = 0; i < group; i++) {
      for (int e = 0; e < len; e++) {
        buffer[(2 + 2 * rows + 3 * rows * i) * 64 + e] = Fp16.fromDouble(rnd.nextGaussian() * 2000);
      }
    }
    long before = 0;
    long after = 0;
    List<DspProgram> scheduled = new ArrayList<>();
    for (DspProgram p : merged) {
      DspProgram s = DspListSchedule.schedule(p, dsp.pipeline());
      scheduled.add(s);
      before += p.cycles(dsp.pipeline());
      after += s.cycles(dsp.pipeline());
    }
    long[] golden = new long[1];
    assertArrayEquals(run(64, bound + 2, dsp.pipeline(), buffer, merged, new long[1]),
        run(64, bound + 2, dsp.pipeline(), buffer, scheduled, golden), len + " slots, " + group + " heads");
    assertEquals(after, golden[0], "the golden counts the static cycles");
    assertTrue(after <= before, after + " cycles against " + before);
    if (len == 193) {
      assertTrue(after < before, after + " cycles against " + before);
    }
  }

  /** A random program over r1..r5 and rows 0..3 (a loop of 3 passes in the middle), its registers stored after. */
  private static DspProgram random(Random rnd) {
    DspAssembler a = new DspAssembler();
    for (int r = 1; r <= 5; r++) {
      a.li(r, Fp16.fromDouble(rnd.nextGaussian()) & 0xFFFF);
    }
    a.setLength(1 + rnd.nextInt(2 * LANES));
    straight(a, rnd, 12);
    a.loop(3, () -> straight(a, rnd, 10));
    straight(a, rnd, 12);
    return a.finish("random");
  }

  private static void straight(DspAssembler a, Random rnd, int n) {
    DspOp[] fp = {DspOp.ADD16, DspOp.SUB16, DspOp.MUL16, DspOp.MAX16, DspOp.MIN16};
    for (int k = 0; k < n; k++) {
      int rd = 1 + rnd.nextInt(5);
      int ra = 1 + rnd.nextInt(5);
      int rb = 1 + rnd.nextInt(5);
      switch (rnd.nextInt(8)) {
        case 0 -> a.load(rd, rnd.nextInt(4));
        case 1 -> a.store(rnd.nextInt(4), ra);
        case 2 -> a.setLength(1 + rnd.nextInt(2 * LANES));
        case 3 -> a.emit(DspOp.LSHIFT, rd, ra, 0, 0, false, 0, 1 << rnd.nextInt(3));
        case 4 -> a.masked(fp[rnd.nextInt(fp.length)], rd, ra, rb);
        case 5 -> a.emit(DspOp.ST, 0, ra, 0, 0, true, 0, rnd.nextInt(4));
        case 6 -> a.emit(DspOp.BCAST, rd, ra, 0, 0, false, 0, 0);
        default -> a.op(fp[rnd.nextInt(fp.length)], rd, ra, rb);
      }
    }
  }

  /** {@code p} without its HALT, then r1..r5 stored (unmasked) to rows 8..12. */
  private static DspProgram withRegisters(DspProgram p) {
    DspAssembler a = new DspAssembler();
    a.emitAll(p.instructions().subList(0, p.size() - 1));
    for (int r = 1; r <= 5; r++) {
      a.store(7 + r, r);
    }
    return a.finish(p.name());
  }

  /** Runs {@code programs} in turn on a DSP holding {@code buffer}; adds their cycles to {@code cycles[0]}. */
  static short[] run(int lanes, int rows, DspPipeline pipe, short[] buffer, List<DspProgram> programs,
      long[] cycles) {
    DspInterpreter dsp = new DspInterpreter(lanes, rows, DspMath.DEFAULT).pipeline(pipe);
    for (int i = 0; i < buffer.length; i++) {
      dsp.write(i, buffer[i]);
    }
    for (DspProgram p : programs) {
      dsp.run(p);
      cycles[0] += dsp.cycles();
    }
    short[] out = new short[buffer.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = dsp.read(i);
    }
    return out;
  }
}
