package org.llmnpu.sw.lower;

/** The cost of one step of a phase ({@link PhaseCostModel#step}): cycles, bytes, MACs, commands and unit cycles. */
public record PhaseCost(long cycles, long readBytes, long writeBytes, long macs, long commands, long dspCycles,
                        long gemmCycles, long dmaCycles, long arrayCycles) {
  PhaseCost minus(PhaseCost o) {
    return difference(this, o);
  }

  PhaseCost scale(long times) {
    return new PhaseCost(0, 0, 0, 0, 0, 0, 0, 0, 0).plus(this, times);
  }

  /** {@code this + times · o}. */
  PhaseCost plus(PhaseCost o, long times) {
    return new PhaseCost(cycles + times * o.cycles, readBytes + times * o.readBytes, writeBytes + times * o.writeBytes,
        macs + times * o.macs, commands + times * o.commands, dspCycles + times * o.dspCycles,
        gemmCycles + times * o.gemmCycles, dmaCycles + times * o.dmaCycles, arrayCycles + times * o.arrayCycles);
  }

  static PhaseCost difference(PhaseCost a, PhaseCost b) {
    return new PhaseCost(a.cycles - b.cycles, a.readBytes - b.readBytes, a.writeBytes - b.writeBytes, a.macs - b.macs,
        a.commands - b.commands, a.dspCycles - b.dspCycles, a.gemmCycles - b.gemmCycles, a.dmaCycles - b.dmaCycles,
        a.arrayCycles - b.arrayCycles);
  }
}
