package org.llmnpu.reports.ppa;

import java.util.SortedMap;

/**
 * Standard-cell power from OpenSTA's {@code report_power} at the constrained clock, with a
 * stated switching activity (this OpenSTA has no VCD/SAIF reader): the activity is set on every
 * data input port and OpenSTA propagates it through the logic; the netlist's constants are held still (driven from
 * two tie ports at activity 0, {@code ConstantTies}). SRAM macros are excluded.
 *
 * @param activity       switching activity: toggles per clock cycle
 * @param activityModel  where the activity was set: {@link #INPUTS} (propagated by OpenSTA), or
 *                       {@link #GLOBAL} (every net; used when OpenSTA crashed propagating, and then
 *                       without per-port activities)
 * @param portActivities activities set for particular input ports, sorted by port
 * @param internalMw     internal (short-circuit and cell-internal) power, mW
 * @param switchingMw    net switching power, mW
 * @param leakageMw      leakage power, mW
 * @param totalMw        sum, mW
 */
public record PowerResult(double activity, String activityModel, SortedMap<String, Double> portActivities, double internalMw,
                          double switchingMw, double leakageMw, double totalMw) {
  public static final String INPUTS = "data inputs, propagated through the logic by OpenSTA";
  public static final String GLOBAL = "every net (OpenSTA crashed propagating input activities; per-port "
      + "activities not applied)";

  /** Energy per clock cycle, pJ: total power times the period. */
  public double energyPerCyclePj(double clockNs) {
    return totalMw * clockNs;
  }
}
