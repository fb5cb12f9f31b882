package org.llmnpu.cosim;

import java.util.EnumMap;
import java.util.Map;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.rtl.npu.Npu;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.ExternalMemory;
import org.llmnpu.verilator.SimOptions;
import org.llmnpu.verilator.Simulators;

/**
 * A Verilator model of the generated {@link Npu} with the harness's external memory: load an
 * image, run a program free-running inside the model (no Java round trip per cycle), read the
 * status, the counters and the memory back. One model serves many runs.
 */
public final class NpuRtl implements AutoCloseable {
  /** What the RTL did. */
  public record Run(byte[] memory, ErrorCause error, int errorCommand, Map<Counter, Long> counters,
                    double wallSeconds) {
  }

  private static final int CHUNK = 1 << 15;
  private final NpuConfig config;
  private final Simulator sim;
  private final ExternalMemory mem;

  private NpuRtl(NpuConfig config, Simulator sim) {
    this.config = config;
    this.sim = sim;
    this.mem = ExternalMemory.of(sim);
  }

  /** Builds (or takes from the cache) and starts the model of {@code config}. */
  public static NpuRtl start(NpuConfig config, SimOptions options) {
    return new NpuRtl(config, Simulators.start(Verilog.emit(new Npu(config)), options));
  }

  public NpuConfig config() {
    return config;
  }

  /** The wave file the model writes when started with waves (see {@link SimOptions#withWaves}), or null. */
  public java.nio.file.Path waveFile() {
    return sim.waveFile();
  }

  /**
   * Runs the program at {@code programAddress} of {@code image} ({@code extMemBytes} long) until
   * {@code finished}, at most {@code maxCycles}.
   */
  public Run run(byte[] image, long programAddress, long maxCycles) {
    MachineParams p = config.machine();
    if (image.length != p.extMemBytes()) {
      throw new IllegalArgumentException("memory image has " + image.length + " bytes, the NPU's memory "
          + p.extMemBytes());
    }
    mem.configure(p.extMemBytes(), p.memLatency(), p.beatInterval());
    for (int off = 0; off < image.length; off += CHUNK) {
      int n = Math.min(CHUNK, image.length - off);
      if (!allZero(image, off, n)) {
        mem.load(off, java.util.Arrays.copyOfRange(image, off, off + n));
      }
    }
    sim.reset(2);
    sim.poke("programAddress", programAddress);
    sim.poke("start", 1);
    sim.step(1);
    sim.poke("start", 0);
    long t0 = System.nanoTime();
    mem.runUntilNonZero("finished", maxCycles);
    double seconds = (System.nanoTime() - t0) / 1e9;
    ErrorCause error = ErrorCause.fromCode((int) sim.peekLong("errorCause"));
    int index = (int) sim.peekLong("errorCommand");
    Map<Counter, Long> counters = new EnumMap<>(Counter.class);
    for (Counter c : Counter.values()) {
      sim.poke("counterSelect", c.ordinal());
      counters.put(c, sim.peekLong("counterValue"));
    }
    byte[] out = mem.dump(0, image.length);
    if (mem.faults() != 0) {
      throw new IllegalStateException("the NPU accessed memory outside the image (" + mem.faults()
          + " faults) although it checks every address: a design error");
    }
    return new Run(out, error, error == ErrorCause.NONE ? 0 : index, counters, seconds);
  }

  private static boolean allZero(byte[] b, int off, int n) {
    for (int i = off; i < off + n; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() {
    sim.close();
  }
}
