package org.llmnpu.cosim;

import java.nio.file.Path;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.rtl.npu.Npu;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.rtl.npu.NpuDriver;
import org.llmnpu.verilator.SimOptions;
import org.llmnpu.verilator.Simulators;

/**
 * A Verilator model of the generated {@link Npu} with the harness's external memory, run through its
 * {@link NpuDriver}: load an image, run a program free-running inside the model (no Java round trip per cycle),
 * read the status, the counters and the memory back. One model serves many runs.
 */
public final class NpuRtl implements AutoCloseable {
  private final Simulator sim;
  private final NpuDriver driver;

  private NpuRtl(NpuConfig config, Simulator sim) {
    this.sim = sim;
    this.driver = new NpuDriver(sim, config);
  }

  /** Builds (or takes from the cache) and starts the model of {@code config}. */
  public static NpuRtl start(NpuConfig config, SimOptions options) {
    if (config.axiBus()) {
      throw new IllegalArgumentException("bus=axi: this run drives the NPU's native memory port and start pin; the "
          + "AXI NPU runs through its register map with org.llmnpu.cosim.axi.NpuAxiHost (tests NpuAxiCosimTest, "
          + "NpuAxiDecoderCosimTest); use bus=native here");
    }
    return new NpuRtl(config, Simulators.start(Verilog.emit(new Npu(config)), options));
  }

  public NpuConfig config() {
    return driver.config();
  }

  /** The wave file the model writes when started with waves (see {@link SimOptions#withWaves}), or null. */
  public Path waveFile() {
    return sim.waveFile();
  }

  /**
   * Runs the program at {@code programAddress} of {@code image} ({@code extMemBytes} long) until
   * {@code finished}, at most {@code maxCycles}.
   *
   * @throws NpuDriver.HangException when it has not finished by then
   */
  public NpuDriver.Run run(byte[] image, long programAddress, long maxCycles) {
    return driver.run(image, programAddress, maxCycles);
  }

  @Override
  public void close() {
    sim.close();
  }
}
