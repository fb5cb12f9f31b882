package org.llmnpu.cosim;

import java.util.EnumMap;
import java.util.Map;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.rtl.npu.NpuDriver;

/**
 * Co-simulation of one NPU program: the generated RTL (through {@link NpuRtl}) against the golden
 * ISA simulator and its cycle model. Bit-exactness is of the whole external-memory image after
 * the run; the status (error cause and command) and every counter are compared too.
 */
public final class ProgramCosim {
  /**
   * The comparison.
   *
   * @param bitExact        the RTL's memory image equals the golden one
   * @param firstDifference the first differing byte address, or -1
   * @param statusMatches   error cause and failing command agree
   * @param rtl             the RTL's run
   * @param golden          the golden run (memory, status, golden counters and modelled cycle counters)
   */
  public record Outcome(boolean bitExact, long firstDifference, boolean statusMatches, NpuDriver.Run rtl,
                        IsaSimulator.Result golden) {
    public long rtlCycles() {
      return rtl.counters().get(Counter.CYCLES);
    }

    public long modelCycles() {
      return golden.counter(Counter.CYCLES);
    }

    /** Counters whose RTL value differs from the golden/model value. */
    public Map<Counter, long[]> counterMismatches() {
      Map<Counter, long[]> out = new EnumMap<>(Counter.class);
      for (Counter c : Counter.values()) {
        long r = rtl.counters().get(c);
        long g = golden.counter(c);
        if (r != g) {
          out.put(c, new long[] {r, g});
        }
      }
      return out;
    }

    public boolean passes() {
      return bitExact && statusMatches && counterMismatches().isEmpty();
    }
  }

  private ProgramCosim() {
  }

  /** Runs the program at {@code programAddress} of {@code image} on both and compares. */
  public static Outcome run(NpuRtl rtl, byte[] image, long programAddress) {
    MachineParams p = rtl.config().machine();
    IsaSimulator.Result golden = IsaSimulator.run(p, rtl.config().engineTiming(), image, programAddress);
    long limit = Math.max(1_000_000L, 4 * golden.counter(Counter.CYCLES) + 10_000);
    NpuDriver.Run run = rtl.run(image, programAddress, limit);
    long diff = firstDifference(run.memory(), golden.memory());
    boolean status = run.error() == golden.error()
        && (golden.error() == ErrorCause.NONE || run.errorCommand() == golden.errorCommand());
    return new Outcome(diff < 0, diff, status, run, golden);
  }

  static long firstDifference(byte[] a, byte[] b) {
    int n = Math.min(a.length, b.length);
    for (int i = 0; i < n; i++) {
      if (a[i] != b[i]) {
        return i;
      }
    }
    return a.length == b.length ? -1 : n;
  }
}
