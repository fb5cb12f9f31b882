package org.llmnpu.soc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.llmnpu.sw.lower.Fusion;

class PartitionSolverTest {
  private static final SocPreset SD = SocPreset.load("sd8gen3");
  private static final NpuBackend NPU = NpuBackend.of("edge-64", "int4", Fusion.VERTICAL);

  private static PartitionSolver solver(double syncUs) {
    PartitionProfiler prof = new PartitionProfiler(new RooflineBackend(SD.gpu().orElseThrow(), 4.5), NPU, SD.host());
    return new PartitionSolver(prof, 32, 64, syncUs * 1e-6, SD.host().dramGBs().value() * 1e9, true);
  }

  /** Every candidate of every kind, enumerated without the solver's bisection. */
  private static List<Partition> everyCandidate(PartitionSolver s, int m, int k, int n) {
    List<Partition> all = new ArrayList<>();
    all.add(s.cost(Partition.Kind.GPU_ONLY, k, List.of(), m, n));
    all.add(s.cost(Partition.Kind.NPU_ONLY, k, List.of(new int[] {s.pad(m), n}), 0, 0));
    for (int c = 64; c < n; c += 64) {
      all.add(s.cost(Partition.Kind.WEIGHT_CENTRIC, k, List.of(new int[] {s.pad(m), c}), m, n - c));
    }
    List<Integer> standards = s.standardsBelow(m);
    if (!standards.isEmpty()) {
      int top = standards.get(standards.size() - 1);
      all.add(s.cost(Partition.Kind.ACTIVATION_CENTRIC, k, List.of(new int[] {top, n}), m - top, n));
    }
    for (int std : standards) {
      List<int[]> parts = new ArrayList<>();
      for (int q = 1; q * std < m; q++) {
        parts.add(new int[] {std, n});
        all.add(s.cost(Partition.Kind.MULTI_TENSOR, k, List.copyOf(parts), m - q * std, n));
      }
      for (int c = 64; c < n; c += 64) {
        all.add(s.cost(Partition.Kind.HYBRID, k, List.of(new int[] {std, n}, new int[] {s.pad(m - std), c}), m - std,
            n - c));
      }
    }
    return all;
  }

  @Test
  void theSolversPlanEqualsBruteForceOnEnumerableShapes() {
    int cases = 0;
    int splits = 0;
    for (double sync : new double[] {5, 45}) {
      PartitionSolver s = solver(sync);
      for (int m : new int[] {1, 7, 33, 70, 130, 300}) {
        for (int[] kn : new int[][] {{512, 448}, {1024, 1024}, {2048, 2048}, {4096, 1024}}) {
          int k = kn[0];
          int n = kn[1];
          Partition best = s.solve(m, k, n);
          double brute = everyCandidate(s, m, k, n).stream().mapToDouble(Partition::timeS).min().orElseThrow();
          assertEquals(brute, best.timeS(), 0.0, "m=" + m + " k=" + k + " n=" + n + " sync=" + sync + ": solver chose "
              + best.kind());
          cases++;
          splits += best.kind() == Partition.Kind.GPU_ONLY || best.kind() == Partition.Kind.NPU_ONLY ? 0 : 1;
        }
      }
    }
    assertEquals(48, cases);
    assertTrue(splits >= 10, "only " + splits + " of the cases split the product: the comparison would be weak");
  }

  @Test
  void theSolverUsesCoExecutionWhereItPays() {
    PartitionSolver s = solver(5);
    Partition decode = s.solve(1, 4096, 4096);
    assertEquals(Partition.Kind.WEIGHT_CENTRIC, decode.kind(), decode.toString());
    assertTrue(decode.timeS() < Math.min(s.cost(Partition.Kind.GPU_ONLY, 4096, List.of(), 1, 4096).timeS(),
        s.cost(Partition.Kind.NPU_ONLY, 4096, List.of(new int[] {1, 4096}), 0, 0).timeS()));
  }

  @Test
  void theOrderSwapIsTheCheaperOfTheTwoOrders() {
    NpuGemmCost g = NPU.gemm();
    NpuGemmCost.Choice c = g.bestOrder(300, 4096, 4096);
    assertEquals(Math.min(c.cycles(), c.otherCycles()), c.cycles());
    long direct = g.cycles(300, 4096, 4096);
    assertEquals(c.swapped() ? c.otherCycles() : c.cycles(), direct);
  }

  @Test
  void aStaticShapeNpuPadsToTheNextStandardSize() {
    PartitionSolver s = solver(5);
    assertEquals(1, s.pad(1));
    assertEquals(32, s.pad(20));
    assertEquals(512, s.pad(257));
    assertEquals(List.of(32, 64, 128, 256), s.standardsBelow(300));
  }
}
