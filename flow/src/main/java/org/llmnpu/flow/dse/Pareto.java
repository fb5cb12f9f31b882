package org.llmnpu.flow.dse;

import java.util.ArrayList;
import java.util.List;

/**
 * The Pareto front of points under objectives that are all minimized: a point is on the front when no other point
 * is at least as good in every objective and better in one. Points with equal objective vectors are all on the front
 * (neither dominates the other). O(n² · objectives), fine for sweeps of thousands of points.
 */
public final class Pareto {
  private Pareto() {
  }

  /** For each vector, whether it is on the front; every vector has the same length. */
  public static boolean[] front(List<double[]> vectors) {
    boolean[] on = new boolean[vectors.size()];
    for (int i = 0; i < vectors.size(); i++) {
      on[i] = true;
      for (int j = 0; j < vectors.size() && on[i]; j++) {
        if (j != i && dominates(vectors.get(j), vectors.get(i))) {
          on[i] = false;
        }
      }
    }
    return on;
  }

  /** Whether {@code a} is no worse than {@code b} in every objective and better in at least one. */
  public static boolean dominates(double[] a, double[] b) {
    if (a.length != b.length) {
      throw new IllegalArgumentException("objective vectors of different lengths: " + a.length + " and " + b.length);
    }
    boolean better = false;
    for (int k = 0; k < a.length; k++) {
      if (a[k] > b[k]) {
        return false;
      }
      better |= a[k] < b[k];
    }
    return better;
  }

  /** The indices on the front, in input order. */
  public static List<Integer> frontIndices(List<double[]> vectors) {
    boolean[] on = front(vectors);
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < on.length; i++) {
      if (on[i]) {
        out.add(i);
      }
    }
    return out;
  }
}
