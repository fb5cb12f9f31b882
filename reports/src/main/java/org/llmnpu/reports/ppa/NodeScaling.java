package org.llmnpu.reports.ppa;

import java.util.List;

/**
 * Scales area, delay and energy measured in a 180 nm process to 45 nm and 7 nm with the
 * equations of A. Stillmaker and B. Baas, "Scaling equations for the accurate prediction of
 * CMOS device performance from 180 nm to 7 nm", Integration, the VLSI Journal 58 (2017) 74–81,
 * doi:10.1016/j.vlsi.2017.02.002.
 *
 * <p>Area uses the paper's node-to-node area factors (180→45 nm ×0.053, 180→7 nm ×0.0032).
 * Delay and energy use its fitted polynomials in the supply voltage V (Table 5): delay
 * {@code a·V³ + b·V² + c·V + d}, energy {@code e·V² + f·V + g}; a figure scales by the ratio of
 * the polynomial at the target node and voltage to that at the source. Assumed supplies: 1.8 V
 * at 180 nm (the OSU018 library's nominal voltage), 1.0 V at 45 nm and 0.7 V at 7 nm
 * (the paper's high-performance PTM models at their nominal supplies).
 */
public final class NodeScaling {
  /** A process node with its assumed supply voltage and the paper's fitted coefficients. */
  public enum Node {
    N180(180, 1.8, 1.0, new double[] {0, 97.09, -356.7, 406.5}, new double[] {24.64, -17.98, 0}),
    N45(45, 1.0, 0.053, new double[] {-501.6, 1567, -1619, 566.1}, new double[] {1.018, -0.3107, 0.1539}),
    N7(7, 0.7, 0.0032, new double[] {-28.58, 76.6, -70.26, 24.69}, new double[] {0.1776, -0.09097, 0.02447});

    public final int nm;
    public final double vdd;
    /** Area relative to 180 nm. */
    public final double areaFrom180;
    private final double[] delay;
    private final double[] energy;

    Node(int nm, double vdd, double areaFrom180, double[] delay, double[] energy) {
      this.nm = nm;
      this.vdd = vdd;
      this.areaFrom180 = areaFrom180;
      this.delay = delay;
      this.energy = energy;
    }

    /** The paper's delay polynomial at supply {@code v} (arbitrary units; only ratios matter). */
    public double delayPolynomial(double v) {
      return ((delay[0] * v + delay[1]) * v + delay[2]) * v + delay[3];
    }

    /** The paper's energy polynomial at supply {@code v} (arbitrary units; only ratios matter). */
    public double energyPolynomial(double v) {
      return (energy[0] * v + energy[1]) * v + energy[2];
    }
  }

  /** The scaled nodes reported next to the 180 nm figures. */
  public static final List<Node> TARGETS = List.of(Node.N45, Node.N7);

  public static final String CITATION = "A. Stillmaker and B. Baas, \"Scaling equations for the accurate "
      + "prediction of CMOS device performance from 180 nm to 7 nm\", Integration, the VLSI Journal 58 "
      + "(2017) 74-81, doi:10.1016/j.vlsi.2017.02.002";

  private NodeScaling() {
  }

  /** Factor on an area measured at 180 nm. */
  public static double area(Node to) {
    return to.areaFrom180;
  }

  /** Factor on a delay measured at 180 nm, 1.8 V. */
  public static double delay(Node to) {
    return to.delayPolynomial(to.vdd) / Node.N180.delayPolynomial(Node.N180.vdd);
  }

  /** Factor on an energy measured at {@code from} and supply {@code fromVdd}. */
  public static double energy(Node from, double fromVdd, Node to) {
    return to.energyPolynomial(to.vdd) / from.energyPolynomial(fromVdd);
  }
}
