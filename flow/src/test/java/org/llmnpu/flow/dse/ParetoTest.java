package org.llmnpu.flow.dse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The Pareto front of minimized objectives. */
class ParetoTest {
  @Test
  void aPointWorseInEveryObjectiveIsOffTheFrontAndTiesStayOn() {
    List<double[]> v = List.of(new double[] {1, 5}, new double[] {2, 2}, new double[] {3, 3}, new double[] {5, 1},
        new double[] {2, 2}, new double[] {1, 6});
    assertEquals(List.of(0, 1, 3, 4), Pareto.frontIndices(v));
  }

  @Test
  void dominanceNeedsOneStrictlyBetterObjective() {
    assertTrue(Pareto.dominates(new double[] {1, 2, 3}, new double[] {1, 2, 4}));
    assertFalse(Pareto.dominates(new double[] {1, 2, 3}, new double[] {1, 2, 3}));
    assertFalse(Pareto.dominates(new double[] {0, 9}, new double[] {1, 2}));
  }

  @Test
  void thePairwiseStaircaseKeepsThePointsNoOtherBeatsInBoth() {
    List<ScatterSvg.Dot> dots = List.of(new ScatterSvg.Dot("a", 1, 5, true), new ScatterSvg.Dot("b", 2, 2, true),
        new ScatterSvg.Dot("c", 3, 3, false), new ScatterSvg.Dot("d", 5, 1, true));
    assertEquals(List.of("a", "b", "d"), ScatterSvg.pairFront(dots).stream().map(ScatterSvg.Dot::id).toList());
  }
}
