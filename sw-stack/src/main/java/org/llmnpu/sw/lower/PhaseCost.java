package org.llmnpu.sw.lower;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.llmnpu.isa.Counter;

/**
 * The cost of one step of a phase ({@link PhaseCostModel#step}): every NPU counter ({@link Counter}) the golden ISA
 * simulator would report for the step's program, the work counts derived from the command shapes and the cycle
 * counts from {@code npu-isa}'s cycle model.
 */
public final class PhaseCost {
  private final long[] counters;
  private final int lineBytes;

  /** @param counters values by {@link Counter#ordinal()}; @param lineBytes bytes of a memory beat */
  PhaseCost(long[] counters, int lineBytes) {
    if (counters.length != Counter.values().length) {
      throw new IllegalArgumentException("counters must hold " + Counter.values().length + " values, got "
          + counters.length);
    }
    this.counters = counters.clone();
    this.lineBytes = lineBytes;
  }

  /** One counter. */
  public long counter(Counter c) {
    return counters[c.ordinal()];
  }

  /** Every counter by its JSON key ({@link Counter#key()}), in the hardware's order. */
  public Map<String, Long> counters() {
    Map<String, Long> m = new LinkedHashMap<>();
    for (Counter c : Counter.values()) {
      m.put(c.key(), counters[c.ordinal()]);
    }
    return m;
  }

  public long cycles() {
    return counter(Counter.CYCLES);
  }

  /** External-memory bytes read: command fetch, DMA loads, DSP tables and programs (beats × line). */
  public long readBytes() {
    return counter(Counter.EXT_READ_BEATS) * lineBytes;
  }

  /** External-memory bytes written (beats × line). */
  public long writeBytes() {
    return counter(Counter.EXT_WRITE_BEATS) * lineBytes;
  }

  /** MACs the array executes (a 2:4 GEMM's {@code M·N·2·ceil(K/4)}). */
  public long macs() {
    return counter(Counter.MACS);
  }

  public long commands() {
    return counter(Counter.COMMANDS);
  }

  public long dspCycles() {
    return counter(Counter.DSP_CYCLES);
  }

  public long gemmCycles() {
    return counter(Counter.GEMM_CYCLES);
  }

  public long dmaCycles() {
    return counter(Counter.DMA_CYCLES);
  }

  public long arrayCycles() {
    return counter(Counter.ARRAY_CYCLES);
  }

  PhaseCost minus(PhaseCost o) {
    return combine(o, -1);
  }

  PhaseCost scale(long times) {
    return new PhaseCost(new long[counters.length], lineBytes).plus(this, times);
  }

  /** {@code this + times · o}. */
  PhaseCost plus(PhaseCost o, long times) {
    return combine(o, times);
  }

  private PhaseCost combine(PhaseCost o, long times) {
    long[] sum = counters.clone();
    for (int i = 0; i < sum.length; i++) {
      sum[i] += times * o.counters[i];
    }
    return new PhaseCost(sum, lineBytes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PhaseCost p && p.lineBytes == lineBytes && Arrays.equals(p.counters, counters);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(counters) + lineBytes;
  }

  @Override
  public String toString() {
    return "PhaseCost" + counters();
  }
}
