package org.llmnpu.reports.ppa;

/**
 * A design's figures at one process node: measured at 180 nm, scaled with
 * {@link NodeScaling} (Stillmaker &amp; Baas 2017) at 45 nm and 7 nm.
 *
 * @param nm                   node, nm
 * @param vdd                  supply assumed, V
 * @param logicAreaUm2         standard-cell area, µm²
 * @param sramAreaUm2          SRAM macro area ({@link SramModel}), all copies, µm²
 * @param criticalDelayNs      critical path delay, ns
 * @param fmaxMhz              maximum clock frequency, MHz
 * @param logicEnergyPerCyclePj standard-cell energy per clock cycle at the stated activity, pJ
 * @param logicPowerAtFmaxMw   that energy per cycle times Fmax, mW
 * @param measured             true for the synthesized node, false for scaled figures
 */
public record NodeFigures(int nm, double vdd, double logicAreaUm2, double sramAreaUm2, double criticalDelayNs,
                          double fmaxMhz, double logicEnergyPerCyclePj, double logicPowerAtFmaxMw, boolean measured) {

  /** Standard cells plus SRAM macros, µm². */
  public double totalAreaUm2() {
    return logicAreaUm2 + sramAreaUm2;
  }
}
