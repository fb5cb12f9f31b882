package org.llmnpu.sw.shadow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.lower.NpuTargets;

/** The estimation program on the golden ISA simulator: scores equal the INT8 dot products, cycles the data-free walk. */
class EstimationProgramTest {
  private static byte[][] codes(Random r, int rows, int d, boolean extremes) {
    byte[][] c = new byte[rows][d];
    for (byte[] row : c) {
      for (int i = 0; i < d; i++) {
        row[i] = extremes && r.nextBoolean() ? (byte) (r.nextBoolean() ? 127 : -127) : (byte) (r.nextInt(255) - 127);
      }
    }
    return c;
  }

  /** The run ended without error and each task's scores read back are the INT8 dot products of its codes. */
  private static void assertScores(IsaSimulator.Result run, EstimationProgram.Plan plan, List<byte[][]> q,
      List<byte[][]> k) {
    assertEquals(ErrorCause.NONE, run.error());
    for (int t = 0; t < q.size(); t++) {
      int[][] want = HeadQuantizer.scores(q.get(t), k.get(t));
      int[][] got = EstimationProgram.scores(run.memory(), plan, t);
      for (int i = 0; i < want.length; i++) {
        assertArrayEquals(want[i], got[i], "task " + t + " row " + i);
      }
    }
  }

  @Test
  void raggedAndMergedTasksGiveTheExactDotProductsAndTheWalkedCycles() {
    MachineParams p = NpuTargets.defaultNpu();
    Random r = new Random(38);
    List<EstimationProgram.Shape> shapes = List.of(new EstimationProgram.Shape(1, 1, 8),
        new EstimationProgram.Shape(130, 272, 8), new EstimationProgram.Shape(70, 33, 64),
        new EstimationProgram.Shape(5, 300, 128));
    List<byte[][]> q = new ArrayList<>();
    List<byte[][]> k = new ArrayList<>();
    for (EstimationProgram.Shape s : shapes) {
      q.add(codes(r, s.m(), s.d(), s.m() == 5));
      k.add(codes(r, s.n(), s.d(), s.m() == 5));
    }
    EstimationProgram.Plan plan = EstimationProgram.plan(p, shapes);
    IsaSimulator.Result run = IsaSimulator.run(p, EstimationProgram.image(p, plan, q, k), 0);
    assertScores(run, plan, q, k);
    assertEquals(plan.macs(), run.counter(Counter.MACS));
    assertEquals(run.counter(Counter.CYCLES), EstimationProgram.cycles(p, plan.program()));
  }

  /**
   * On an NPU with more external memory than a JVM array holds (edge-64 has 4 GiB) the image is bounded to the plan's
   * data ({@code MemoryImage.dataImageLength}); the golden run gives the scores and every counter of the 16 MiB NPU.
   */
  @Test
  void aGoldenRunOnFourGibibytesEqualsTheSameRunOnSixteenMebibytes() {
    MachineParams small = NpuTargets.defaultNpu();
    MachineParams big = small.withExtMemBytes(4L << 30);
    Random r = new Random(39);
    List<EstimationProgram.Shape> shapes = List.of(new EstimationProgram.Shape(33, 300, 8),
        new EstimationProgram.Shape(8, 77, 64));
    List<byte[][]> q = new ArrayList<>();
    List<byte[][]> k = new ArrayList<>();
    for (EstimationProgram.Shape s : shapes) {
      q.add(codes(r, s.m(), s.d(), false));
      k.add(codes(r, s.n(), s.d(), false));
    }
    EstimationProgram.Plan plan = EstimationProgram.plan(big, shapes);
    byte[] image = EstimationProgram.image(big, plan, q, k);
    assertTrue(image.length >= plan.end() && image.length < plan.end() + big.lineBytes(), image.length + " bytes");
    IsaSimulator.Result run = IsaSimulator.run(big, image, 0);
    IsaSimulator.Result whole = IsaSimulator.run(small, EstimationProgram.image(small, plan, q, k), 0);
    assertScores(run, plan, q, k);
    assertArrayEquals(whole.counters(), run.counters());
    assertEquals(run.counter(Counter.CYCLES), EstimationProgram.cycles(big, plan.program()));
  }

  @Test
  void aHeadDimensionPastMaxKAndAnOversizedContextAreRefused() {
    MachineParams p = NpuTargets.defaultNpu();
    String m = assertThrows(IllegalArgumentException.class,
        () -> EstimationProgram.plan(p, List.of(new EstimationProgram.Shape(4, 4, 1024)))).getMessage();
    assertEquals("head dimension 1024 exceeds the NPU's maxK 512", m);
    String big = assertThrows(IllegalArgumentException.class,
        () -> EstimationProgram.plan(p, List.of(new EstimationProgram.Shape(4096, 4096, 8)))).getMessage();
    assertTrue(big.contains("extMemMiB"), big);
  }
}
