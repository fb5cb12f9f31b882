package org.llmnpu.cosim.axi;

import org.llmnpu.cosim.WaveCapture;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.axi.Axi4MemoryConfig;

/**
 * One program on the AXI NPU ({@code bus=axi}) as {@code npu cosim program -p bus=axi} runs it: the golden ISA
 * simulator, then the AXI NPU in Verilator through its register map ({@link NpuAxiHost}: PROG_BASE, PROG_LEN, START,
 * the interrupt) on the AXI memory {@link NpuAxiComparison#memoryFor} the configuration, with the protocol checker on;
 * compared as {@link NpuAxiComparison} says.
 */
public final class NpuAxiProgramRun {
  /**
   * A run and its comparison.
   *
   * @param golden     the golden simulator's result (at the configuration's {@code memLatency})
   * @param rtl        the host's run
   * @param memory     the AXI memory's timing
   * @param comparison the reduced comparison
   */
  public record Outcome(IsaSimulator.Result golden, NpuAxiHost.Run rtl, Axi4MemoryConfig memory,
                        NpuAxiComparison comparison) {
    public boolean passes() {
      return comparison.passes();
    }
  }

  private NpuAxiProgramRun() {
  }

  /** Runs the program at {@code programAddress} ({@code programBytes} long) of {@code image} on both. */
  public static Outcome run(NpuConfig config, byte[] image, long programAddress, long programBytes,
                            WaveCapture waves) {
    IsaSimulator.Result g = IsaSimulator.run(config.machine(), config.engineTiming(), image, programAddress);
    Axi4MemoryConfig memory = NpuAxiComparison.memoryFor(config, image.length);
    long bound = NpuAxiComparison.boundModelCycles(config, memory, image, programAddress, g);
    long limit = 20 * Math.max(bound, g.counter(Counter.CYCLES)) + 100_000;
    try (NpuAxiHost host = NpuAxiHost.start(config, waves.options())) {
      NpuAxiHost.Run r = host.run(image, programAddress, programBytes, memory, limit, false);
      waves.note(host.simulator());
      return new Outcome(g, r, memory, NpuAxiComparison.of(g, r, memory, bound, image, programAddress));
    }
  }
}
