package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.dsp.DspAssembler;
import org.llmnpu.isa.dsp.DspInterpreter;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspPipeline;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.numerics.fp16.Fp16;

/**
 * {@link DspLoopMerge} merges looped programs with disjoint rows bit-exactly (a row every copy reads loaded once) and
 * refuses what would change results.
 */
class DspLoopMergeTest {
  /** Sum of squares of {@code rows} rows at {@code in}, broadcast to row {@code out}; x·2 stored to {@code in + rows}. */
  private static DspProgram program(int in, int rows, int out) {
    DspAssembler a = new DspAssembler();
    a.li(1, 0x4000).li(2, 0).setLength(rows * 4);
    a.loop(rows, () -> a.load(3, in).op(DspOp.MUL16, 4, 3, 3).masked(DspOp.ADD16, 2, 2, 4)
        .op(DspOp.MUL16, 5, 3, 1).store(in + rows, 5));
    a.store(out, 2);
    return a.finish("sq " + in);
  }

  @Test
  void mergedEqualsSeparateRunsAndTakesFewerCycles() {
    List<DspProgram> programs = List.of(program(0, 3, 20), program(6, 3, 21), program(12, 3, 22));
    DspProgram merged = DspLoopMerge.merge(programs, 256);
    assertNotNull(merged);
    long separate = assertRunsAlike(programs, merged);
    long cycles = merged.cycles(DspPipeline.FOUR_STAGE_EXECUTE);
    org.junit.jupiter.api.Assertions.assertTrue(cycles < separate, cycles + " vs " + separate);
  }

  @Test
  void refusesOverlappingRows() {
    assertNull(DspLoopMerge.merge(List.of(program(0, 3, 20), program(3, 3, 21)), 256), "copy 1 reads copy 0's x·2");
  }

  /**
   * A value carried across iterations (r1 read before the body writes it: iteration i reads iteration i − 1's value)
   * keeps one register in each copy (DspLoopRegisters): the merged run leaves the separate runs' buffer, and the
   * golden counts its static cycles.
   */
  @Test
  void carriedValuesKeepARegisterEachCopy() {
    List<DspProgram> programs = new java.util.ArrayList<>();
    for (int row : new int[] {0, 8}) {
      DspAssembler a = new DspAssembler();
      a.li(1, 0x3800).li(2, 0x3C00).li(4, 0x4000).setLength(4);
      a.loop(3, () -> a.op(DspOp.ADD16, 3, 1, 2).op(DspOp.MUL16, 1, 3, 4).store(row, 3));
      a.store(row + 4, 1);
      programs.add(a.finish("carried @" + row));
    }
    DspProgram merged = DspLoopMerge.merge(programs, 256);
    assertNotNull(merged);
    assertRunsAlike(programs, merged);
  }

  /**
   * A row every copy loads in its loop (a weight row none writes, into a register only that load writes) is loaded
   * once a merged pass, and the results are the separate runs'.
   */
  @Test
  void sharedRowLoadedOnceInTheLoop() {
    List<DspProgram> programs = new java.util.ArrayList<>();
    for (int copy = 0; copy < 3; copy++) {
      int k = copy;
      DspAssembler a = new DspAssembler();
      a.li(2, 0).setLength(12);
      a.loop(3, () -> a.load(3, 4 * k).load(6, 29).op(DspOp.MUL16, 4, 3, 6).masked(DspOp.ADD16, 2, 2, 4)
          .store(4 * k + 12, 4));
      a.store(24 + k, 2);
      programs.add(a.finish("weighted " + k));
    }
    DspProgram merged = DspLoopMerge.merge(programs, 256);
    assertNotNull(merged);
    long loads = merged.instructions().stream().filter(in -> in.op() == DspOp.LD && in.imm() == 29).count();
    assertEquals(1, loads, "the shared row's load: " + merged.instructions());
    assertRunsAlike(programs, merged);
  }

  /**
   * Runs the programs one after the other and the merged one on two DSPs holding the same buffer: the buffers match
   * element for element and the golden counts the merged program's static cycles. Returns the separate runs' cycles.
   */
  private static long assertRunsAlike(List<DspProgram> programs, DspProgram merged) {
    DspInterpreter a = dsp();
    DspInterpreter b = dsp();
    long separate = 0;
    for (DspProgram p : programs) {
      a.run(p);
      separate += a.cycles();
    }
    b.run(merged);
    for (int e = 0; e < 32 * 4; e++) {
      assertEquals(a.read(e), b.read(e), "element " + e);
    }
    assertEquals(merged.cycles(DspPipeline.FOUR_STAGE_EXECUTE), b.cycles());
    return separate;
  }

  private static DspInterpreter dsp() {
    DspInterpreter d = new DspInterpreter(4, 32, DspMath.DEFAULT).pipeline(DspPipeline.FOUR_STAGE_EXECUTE);
    for (int e = 0; e < 32 * 4; e++) {
      d.write(e, Fp16.fromDouble((e * 37 % 101 - 50) / 7.0));
    }
    return d;
  }
}
