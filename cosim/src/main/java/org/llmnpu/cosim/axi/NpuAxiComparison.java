package org.llmnpu.cosim.axi;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.CommandCodec;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.rtl.npu.axi.NpuAxiStatus;
import org.llmnpu.verilator.axi.Axi4MemoryConfig;

/**
 * The comparison a run of the AXI NPU ({@code bus=axi}, through {@link NpuAxiHost}) gets against the golden ISA
 * simulator: smaller than the native NPU's, since the register map shows less. Compared: the memory image (bit for
 * bit, except the counters a {@code snapshot} wrote: {@link #withoutSnapshots}), the status (STATUS.done ↔ the
 * golden's halt, else STATUS's error cause = the golden's {@code ErrorCause} code; the failing command's index is not
 * in the register map), and the register map's work counters
 * ({@link NpuAxiStatus#SHOWN} that the golden simulator computes: commands, MACs; saturated to 32 bits). Cycles are
 * not equal to the model's (AXI timing is not modelled exactly): they are checked against the stated bound of
 * npu-rtl/README.md ("The NPU as SoC IP") — on an AXI memory of read latency {@code La}, a beat a cycle, no
 * back-pressure, the NPU's {@code cycles} lie between the cycle model's at {@code memLatency = La + }{@value #BOUND_EXTRA}
 * and {@value #BOUND_FACTOR} times that; on other memory timing the bound is not checked (and says so).
 *
 * @param differences  what differs, in words (empty: the run passes)
 * @param rtlCycles    the NPU's {@code cycles} counter (COUNTER_0)
 * @param boundCycles  the cycle model's cycles at {@code memLatency = La + }{@value #BOUND_EXTRA}
 * @param boundChecked whether the memory timing is the bound's (a beat a cycle, no back-pressure)
 */
public record NpuAxiComparison(List<String> differences, long rtlCycles, long boundCycles, boolean boundChecked) {
  /** Cycles the AXI path adds to a read beyond the memory's read latency: request buffer, AR register, R register. */
  public static final int BOUND_EXTRA = 3;
  /** The bound's upper factor over the model at {@code La + BOUND_EXTRA}. */
  public static final double BOUND_FACTOR = 2.0;
  /** What the comparison covers, for the CLI's output. */
  public static final String DESCRIPTION = "reduced comparison over AXI: memory image (snapshots' counters excepted), status and error cause, the "
      + "register map's work counters (commands, macs); cycles against the bound [model(La + " + BOUND_EXTRA
      + "), " + BOUND_FACTOR + " x model(La + " + BOUND_EXTRA + ")]";

  public NpuAxiComparison {
    differences = List.copyOf(differences);
  }

  public boolean passes() {
    return differences.isEmpty();
  }

  /**
   * The AXI memory {@code cosim program} and {@code cosim decoder} run the AXI NPU on for {@code config}: read and
   * write latency {@code max(1, memLatency − }{@value #BOUND_EXTRA}{@code )} (so the bound's model is the
   * configuration's own {@code memLatency} when it is at least 4), a beat every {@code ceil(line / memBytesPerCycle)}
   * cycles, 16 reads outstanding, no back-pressure, reordering across IDs on, {@code sizeBytes} bytes.
   */
  public static Axi4MemoryConfig memoryFor(NpuConfig config, int sizeBytes) {
    int la = Math.max(1, config.memLatency() - BOUND_EXTRA);
    int line = config.machine().lineBytes();
    int cyclesPerBeat = Math.max(1, (line + config.memBytesPerCycle() - 1) / config.memBytesPerCycle());
    return new Axi4MemoryConfig(sizeBytes, la, la, cyclesPerBeat, 16, 0, true, 1);
  }

  /** The cycle model's cycles for the program at {@code memLatency = La + }{@value #BOUND_EXTRA} on {@code memory}. */
  public static long boundModelCycles(NpuConfig config, Axi4MemoryConfig memory, byte[] image, long programAddress,
                                      IsaSimulator.Result golden) {
    int latency = memory.readLatency() + BOUND_EXTRA;
    if (latency == config.memLatency() && memory.cyclesPerBeat() == 1
        && config.memBytesPerCycle() >= config.machine().lineBytes()) {
      return golden.counter(Counter.CYCLES);
    }
    NpuConfig model = config.toBuilder().memory(latency, config.machine().lineBytes()).build();
    return IsaSimulator.run(model.machine(), model.engineTiming(), image, programAddress).counter(Counter.CYCLES);
  }

  /**
   * Compares {@code run} (on {@code memory}) with {@code golden}; {@code boundCycles} from {@link #boundModelCycles};
   * {@code image} and {@code programAddress} are the run's input (for {@link #withoutSnapshots}).
   */
  public static NpuAxiComparison of(IsaSimulator.Result golden, NpuAxiHost.Run run, Axi4MemoryConfig memory,
                                    long boundCycles, byte[] image, long programAddress) {
    List<String> diffs = new ArrayList<>();
    ErrorCause g = golden.error();
    boolean statusEqual = g == ErrorCause.NONE ? run.done() : !run.done() && run.errorCause() == g.code();
    if (!statusEqual) {
      diffs.add("status RTL " + (run.done() ? "done" : "error cause " + run.errorCause()) + ", golden "
          + (g == ErrorCause.NONE ? "done" : g + " (cause " + g.code() + ")"));
    }
    long at = firstDifference(withoutSnapshots(run.memory(), golden, image, programAddress), golden.memory());
    if (at >= 0) {
      diffs.add("memory from 0x" + Long.toHexString(at));
    }
    for (Counter c : NpuAxiStatus.SHOWN) {
      if (c.golden() && run.counter(c) != Math.min(golden.counter(c), 0xFFFF_FFFFL)) {
        diffs.add(c.key() + " RTL " + run.counter(c) + " vs golden " + golden.counter(c));
      }
    }
    long rtl = run.counter(Counter.CYCLES);
    boolean checked = memory.cyclesPerBeat() == 1 && memory.backPressure() == 0;
    if (checked && (rtl < boundCycles || rtl > BOUND_FACTOR * boundCycles)) {
      diffs.add("cycles RTL " + rtl + " outside the bound [" + boundCycles + ", " + (long) (BOUND_FACTOR * boundCycles)
          + "] (model at memLatency " + (memory.readLatency() + BOUND_EXTRA) + ")");
    }
    return new NpuAxiComparison(diffs, rtl, boundCycles, checked);
  }

  /**
   * {@code rtl} with the counters a {@code snapshot} of the program wrote replaced by the golden's, so the memory
   * comparison covers everything else. A snapshot's values are those of its first cycle, and over AXI that cycle
   * falls elsewhere in the memory traffic: besides the timing counters (cycles, stall and busy cycles), the work
   * counters of what is in flight then (command prefetch beats, scratchpad writes) differ from the golden's too; the
   * register map's counters, read after the run, are compared instead. The program's commands are read from
   * {@code image} at {@code programAddress} up to its {@code halt} (programs do not store into their own commands).
   */
  public static byte[] withoutSnapshots(byte[] rtl, IsaSimulator.Result golden, byte[] image,
                                              long programAddress) {
    byte[] out = rtl.clone();
    byte[] g = golden.memory();
    long commands = golden.counter(Counter.COMMANDS);
    for (long i = 0, a = programAddress; i < commands && a + Command.BYTES <= image.length; i++, a += Command.BYTES) {
      Command c = CommandCodec.decode(CommandCodec.wordsAt(image, a)).orElse(null);
      if (c == null || c instanceof Command.Halt) {
        break;
      }
      if (c instanceof Command.Snapshot snap) {
        long at = snap.ext();
        int bytes = 8 * Counter.values().length;
        if (at >= 0 && at + bytes <= Math.min(out.length, g.length)) {
          System.arraycopy(g, (int) at, out, (int) at, bytes);
        }
      }
    }
    return out;
  }

  /** The first byte index where {@code a} and {@code b} differ, or −1. */
  public static long firstDifference(byte[] a, byte[] b) {
    int n = Math.min(a.length, b.length);
    for (int i = 0; i < n; i++) {
      if (a[i] != b[i]) {
        return i;
      }
    }
    return a.length == b.length ? -1 : n;
  }
}
