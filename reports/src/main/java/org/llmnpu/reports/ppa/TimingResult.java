package org.llmnpu.reports.ppa;

/**
 * The worst setup path OpenSTA found at the given clock.
 *
 * @param clockNs          clock period constrained, ns
 * @param clockPort        the clock input, or empty for a virtual clock (no clock port)
 * @param startpoint       where the path starts (register or input port), as the architect names it
 * @param endpoint         where it ends (register, SRAM macro pin or output port)
 * @param logicDepth       standard cells between the start and end instances
 * @param arrivalNs        data arrival time at the endpoint, ns
 * @param slackNs          required minus arrival time, ns (negative: the clock is too fast)
 * @param criticalDelayNs  period minus slack, ns: the shortest period this path allows
 * @param fmaxMhz          1000 / criticalDelayNs, MHz
 */
public record TimingResult(double clockNs, String clockPort, String startpoint, String endpoint, int logicDepth,
                           double arrivalNs, double slackNs, double criticalDelayNs, double fmaxMhz) {
}
