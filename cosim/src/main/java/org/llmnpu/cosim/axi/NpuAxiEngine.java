package org.llmnpu.cosim.axi;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.rtl.npu.axi.NpuAxiStatus;
import org.llmnpu.sw.lower.NpuEngine;
import org.llmnpu.verilator.axi.Axi4MemoryConfig;

/**
 * The software stack's engine on the AXI NPU: each program runs on the golden ISA simulator (with the NPU's GEMM
 * timing and {@code memLatency} of the configuration) and through {@link NpuAxiHost} on an AXI memory of timing
 * {@code memory} (its size set to the image's); each run is recorded ({@link Check}) and the session goes on with the
 * golden image.
 */
public final class NpuAxiEngine implements NpuEngine {
  /**
   * One program's comparison.
   *
   * @param label       the session's name of the run
   * @param bitExact    memory image equal
   * @param statusEqual done ↔ golden halt, or the same error cause
   * @param countsEqual the register map's work counters (commands, MACs) equal the golden's
   * @param rtlCycles   the NPU's cycles counter over AXI
   * @param modelCycles the cycle model's at the configuration's {@code memLatency}
   * @param run         the host's run
   */
  public record Check(String label, boolean bitExact, boolean statusEqual, boolean countsEqual, long rtlCycles,
                      long modelCycles, NpuAxiHost.Run run) {
    public boolean passes() {
      return bitExact && statusEqual && countsEqual;
    }
  }

  private final NpuAxiHost host;
  private final Axi4MemoryConfig memory;
  private final List<Check> checks = new ArrayList<>();

  public NpuAxiEngine(NpuAxiHost host, Axi4MemoryConfig memory) {
    this.host = host;
    this.memory = memory;
  }

  /** The runs so far, in order. */
  public List<Check> checks() {
    return List.copyOf(checks);
  }

  @Override
  public Run run(MachineParams machine, byte[] image, long programAddress, String label) {
    IsaSimulator.Result g = IsaSimulator.run(machine, host.config().engineTiming(), image, programAddress);
    Axi4MemoryConfig m = new Axi4MemoryConfig(image.length, memory.readLatency(), memory.writeLatency(),
        memory.cyclesPerBeat(), memory.maxOutstandingReads(), memory.backPressure(), memory.reorder(),
        memory.seed() + checks.size());
    long limit = 20 * g.counter(Counter.CYCLES) + 100_000;
    NpuAxiHost.Run r = host.run(image, programAddress, 0, m, limit, false);
    boolean status = g.error() == ErrorCause.NONE ? r.done() : r.errorCause() == g.error().code();
    boolean counts = true;
    for (Counter c : NpuAxiStatus.SHOWN) {
      if (c.golden()) {
        counts &= Math.min(g.counter(c), 0xFFFF_FFFFL) == r.counter(c);
      }
    }
    checks.add(new Check(label, Arrays.equals(g.memory(), r.memory()), status, counts, r.counter(Counter.CYCLES),
        g.counter(Counter.CYCLES), r));
    return new Run(g.memory(), g.counters(), g.error(), g.errorCommand());
  }
}
